/**
 * Minimal typings for `wink-bm25-text-search` (it ships none), a dev dependency: the reference the BM25 tests compare
 * every score of `model/bm25-ranking.ts` with. Only the members the tests call are declared.
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
