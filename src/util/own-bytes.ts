/**
 * `bytes` itself when it is the whole of its memory, else a copy that is. Caches keep the values a backend returns;
 * a value that is a view into a larger buffer (a backend's page or reply) would keep all of that buffer alive, so it
 * is copied, while a value with memory of its own (classic-level and memory-level return those) is kept as it is,
 * without a copy per cached value. The caller must not mutate what it keeps, nor what it was given.
 * @internal
 */
export function ownBytes(bytes: Buffer): Buffer {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : Buffer.from(bytes);
}
