import * as flatbuffers from 'flatbuffers';

/** A scratch builder that grew past this (a record with a large payload) is replaced rather than kept. */
const KEEP_BYTES = 256 * 1024;

let scratch: flatbuffers.Builder | null = null;

/**
 * The engine's one FlatBuffers builder for the hot synchronous encoders (chunk records, directory entries, block
 * frames and infos, accounting), cleared and handed out again on every call. A fresh builder per value allocated and
 * zero-filled its buffer, then grew it by doubling copies (a directory entry with 64 keywords grew 128 → 1,024
 * bytes), on every put. The bytes built are the same: FlatBuffers lays a value out relative to the end of its
 * buffer, whatever the buffer's size, and writes its own padding.
 *
 * REQUIRES: the caller builds one value synchronously, never calls another user of this builder meanwhile, and
 * copies the result out (`asUint8Array` is a view that the next call overwrites) before returning.
 */
export function scratchBuilder(): flatbuffers.Builder {
  if (scratch === null || scratch.dataBuffer().capacity() > KEEP_BYTES) scratch = new flatbuffers.Builder(4096);
  else scratch.clear();
  return scratch;
}
