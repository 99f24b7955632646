/**
 * The typed message protocol between the engine thread and GC workers (piscina). Workers never touch the
 * database: they get frame bytes, return record bytes or encoded frames. Commits stay on the owning thread.
 */

/** Decode victim frames and return every record with its position and identity. */
export interface ExtractTask {
  readonly kind: 'extract';
  readonly frames: readonly { readonly key: string; readonly value: Uint8Array }[];
}

export interface ExtractedRecord {
  readonly blockId: number;
  readonly frame: number;
  readonly slot: number;
  readonly sessionId: string;
  readonly chunkId: string;
  readonly version: number;
  readonly bytes: Uint8Array;
}

export interface ExtractResult {
  readonly records: ExtractedRecord[];
  /**
   * Frames that failed their checksum or did not decode. GC leaves their blocks where they are (it cannot tell
   * which of their slots are live); verify() names them. Errors do not cross the worker boundary as AkashicError,
   * so damage is reported as data, not thrown.
   */
  readonly damaged: { readonly key: string; readonly message: string }[];
}

/** Compress and envelope fresh single-frame blocks. */
export interface EncodeBlocksTask {
  readonly kind: 'encode-blocks';
  readonly zstdLevel: number;
  readonly blocks: readonly { readonly blockId: number; readonly userId: string; readonly records: readonly Uint8Array[] }[];
}

export interface EncodeBlocksResult {
  readonly frames: { readonly blockId: number; readonly value: Uint8Array; readonly rawBytes: number }[];
}

export type GcTask = ExtractTask | EncodeBlocksTask;
