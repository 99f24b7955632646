/**
 * A real HTTP server on 127.0.0.1 speaking the OpenAI `/v1/embeddings` protocol, to drive `OpenAIEmbedder`
 * through its success, retry and failure paths. A request consumes the next scripted step, or, with the script
 * empty, is answered by `embed` (a deterministic function of the text), so whole MemAttention runs can use it.
 */
import { sendJsonText as send, startScriptedHttpServer } from './scripted-http-server.js';

export type EmbeddingStep =
  /** 200 with these vectors (one per input expected, but the test decides). */
  | { readonly kind: 'vectors'; readonly vectors: readonly (readonly number[])[]; readonly reverse?: boolean }
  /** 200 with this raw body (malformed JSON, wrong shape). */
  | { readonly kind: 'raw'; readonly body: string }
  | { readonly kind: 'status'; readonly status: number; readonly headers?: Readonly<Record<string, string>> }
  /** Wait before answering with `embed` (the client may time out first). */
  | { readonly kind: 'delay'; readonly ms: number };

export interface EmbeddingRequest {
  readonly model?: string;
  readonly input?: string | string[];
  readonly encoding_format?: string;
  readonly dimensions?: number;
}

export interface ScriptedEmbeddingsServer {
  readonly baseURL: string;
  readonly requests: EmbeddingRequest[];
  enqueue(...steps: EmbeddingStep[]): void;
  reset(): void;
  close(): Promise<void>;
}

function reply(model: string, vectors: readonly (readonly number[])[], reverse = false): string {
  const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding }));
  if (reverse) data.reverse();
  return JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: 3 * vectors.length, total_tokens: 3 * vectors.length } });
}

/** Starts the server; `embed` answers requests the script does not cover. */
export async function startScriptedEmbeddingsServer(embed: (text: string) => number[]): Promise<ScriptedEmbeddingsServer> {
  const script: EmbeddingStep[] = [];
  const requests: EmbeddingRequest[] = [];
  const server = await startScriptedHttpServer<EmbeddingRequest>(
    '/embeddings',
    (_req, body) => requests.push(body),
    (body, res) => {
      const inputs = typeof body.input === 'string' ? [body.input] : (body.input ?? []);
      const model = body.model ?? 'unknown';
      const step = script.shift();
      if (step === undefined) return send(res, 200, reply(model, inputs.map(embed)));
      switch (step.kind) {
        case 'vectors':
          return send(res, 200, reply(model, step.vectors, step.reverse));
        case 'raw':
          return send(res, 200, step.body);
        case 'status':
          return send(res, step.status, JSON.stringify({ error: { message: `scripted status ${step.status}`, type: 'scripted_error' } }), { ...step.headers });
        case 'delay': {
          const timer = setTimeout(() => send(res, 200, reply(model, inputs.map(embed))), step.ms);
          res.on('close', () => clearTimeout(timer));
          return;
        }
      }
    },
  );
  return {
    baseURL: server.baseURL,
    requests,
    enqueue: (...steps) => void script.push(...steps),
    reset: () => {
      script.length = 0;
      requests.length = 0;
    },
    close: () => server.close(),
  };
}

/**
 * A toy embedding for tests: one axis per concept, a text's vector counts the words of each concept it holds.
 * Words of one concept share no letters ("moved", "live", "lisbon" → home), so only the vector relates them.
 */
export const CONCEPTS: readonly (readonly string[])[] = [
  ['live', 'lives', 'moved', 'lisbon', 'apartment', 'home'],
  ['pet', 'puppy', 'dog', 'adopted'],
  ['job', 'work', 'hired', 'engineer', 'career'],
  ['food', 'eat', 'sushi', 'dinner', 'favourite'],
];

export function conceptVector(text: string): number[] {
  const v = new Array<number>(CONCEPTS.length + 1).fill(0);
  v[CONCEPTS.length] = 0.05; // never all zeros
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    CONCEPTS.forEach((words, i) => {
      if (words.includes(w)) v[i]! += 1;
    });
  }
  return v;
}
