/**
 * Minimal typings for the two wink packages the embedded model uses; neither ships its own. Only the members Akashic
 * calls are declared, so a wrong call fails to compile instead of silently typing as `any`.
 *
 * @internal
 */

declare module 'wink-bm25-text-search' {
  namespace bm25 {
    interface Engine {
      defineConfig(config: { fldWeights: Record<string, number>; bm25Params?: { k1?: number; b?: number; k?: number } }): boolean;
      definePrepTasks(tasks: ReadonlyArray<(input: string) => string[]>, field?: string): number;
      addDoc(doc: Record<string, string>, id: string | number): number;
      /** Requires at least 3 documents; throws otherwise. */
      consolidate(freqPrecision?: number): boolean;
      /** `[id, score]` pairs, best first, at most `limit` (default 10). */
      search(text: string, limit?: number): Array<[string, number]>;
    }
  }
  function bm25(): bm25.Engine;
  export = bm25;
}

declare module 'wink-nlp-utils' {
  const nlpUtils: {
    readonly string: {
      /** Porter2 stem of one lower-case word. */
      stem(word: string): string;
    };
  };
  export = nlpUtils;
}
