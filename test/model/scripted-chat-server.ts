/**
 * A real HTTP server on 127.0.0.1 that speaks just enough of the OpenAI chat-completions protocol to drive
 * `OpenAIChatModel` through its success, retry and failure paths. Each request to `POST /v1/chat/completions`
 * consumes the next step of a script; requests are recorded so tests can check what the client sent.
 */
import type { ServerResponse } from 'node:http';
import { sendJsonText, startScriptedHttpServer } from './scripted-http-server.js';

/** One scripted reaction to one request. */
export type ScriptStep =
  /** 200 with `JSON.stringify(value)` as the assistant message content. */
  | { readonly kind: 'json'; readonly value: unknown }
  /** 200 with this exact content (use for malformed or schema-mismatched replies). */
  | { readonly kind: 'content'; readonly content: string }
  /** An HTTP error with an OpenAI-style error body. */
  | { readonly kind: 'status'; readonly status: number; readonly headers?: Readonly<Record<string, string>> }
  /** Wait `ms` before performing `then` (default: a valid empty JSON object); the client may give up first. */
  | { readonly kind: 'delay'; readonly ms: number; readonly then?: ScriptStep };

/** What the client sent. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: ChatRequestBody;
}

/** The fields of a chat-completions request body that tests inspect. */
export interface ChatRequestBody {
  readonly model?: string;
  readonly temperature?: number;
  readonly response_format?: { readonly type?: string };
  readonly messages?: ReadonlyArray<{ readonly role: string; readonly content: string }>;
}

export interface ScriptedChatServer {
  /** Base URL to hand to the client, ending in `/v1`. */
  readonly baseURL: string;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Appends steps to the script. */
  enqueue(...steps: ScriptStep[]): void;
  /**
   * Resolves once `n` delayed requests (since the last reset) were abandoned: the client closed the connection
   * before the scripted delay ended (its timeout cut the request short). An event, so no test times the client.
   */
  abandoned(n: number): Promise<void>;
  /** Steps not consumed yet. */
  remaining(): number;
  /** Clears the script and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

/** Usage reported with every successful reply, so token accounting can be asserted. */
export const SCRIPTED_USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } as const;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

function completion(model: string, content: string): object {
  return {
    id: `chatcmpl-scripted-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
    usage: SCRIPTED_USAGE,
  };
}

function perform(res: ServerResponse, step: ScriptStep, model: string, onAbandoned: () => void): void {
  switch (step.kind) {
    case 'json':
      sendJson(res, 200, completion(model, JSON.stringify(step.value)));
      return;
    case 'content':
      sendJson(res, 200, completion(model, step.content));
      return;
    case 'status':
      sendJson(
        res,
        step.status,
        { error: { message: `scripted status ${step.status}`, type: 'scripted_error', code: null, param: null } },
        { ...step.headers },
      );
      return;
    case 'delay': {
      const timer = setTimeout(() => perform(res, step.then ?? { kind: 'json', value: {} }, model, onAbandoned), step.ms);
      // The client aborting (timeout) closes the response early; do not keep the timer alive for nothing.
      res.on('close', () => {
        clearTimeout(timer);
        if (!res.writableEnded) onAbandoned();
      });
      return;
    }
  }
}

/** Starts a server on 127.0.0.1 with an OS-chosen port. */
export async function startScriptedChatServer(): Promise<ScriptedChatServer> {
  const script: ScriptStep[] = [];
  const requests: RecordedRequest[] = [];
  let abandoned = 0;
  let abandonWaiters: { n: number; resolve: () => void }[] = [];
  const onAbandoned = (): void => {
    abandoned++;
    const due = abandonWaiters.filter((w) => w.n <= abandoned);
    abandonWaiters = abandonWaiters.filter((w) => w.n > abandoned);
    for (const w of due) w.resolve();
  };

  const server = await startScriptedHttpServer<ChatRequestBody>(
    '/chat/completions',
    (req, body) => requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body }),
    (body, res) => {
      const step = script.shift();
      if (step === undefined) {
        // 400 is not retried by the client, so an exhausted script fails the test fast and visibly.
        sendJson(res, 400, { error: { message: 'script exhausted', type: 'scripted_error' } });
        return;
      }
      perform(res, step, body.model ?? 'unknown', onAbandoned);
    },
  );

  return {
    baseURL: server.baseURL,
    requests,
    enqueue: (...steps) => {
      script.push(...steps);
    },
    abandoned: (n) =>
      n <= abandoned
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            abandonWaiters.push({ n, resolve });
          }),
    remaining: () => script.length,
    reset: () => {
      script.length = 0;
      requests.length = 0;
      abandoned = 0;
      abandonWaiters = [];
    },
    close: () => server.close(),
  };
}
