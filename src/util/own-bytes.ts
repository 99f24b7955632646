/**
 * `bytes` itself when it is the whole of its memory, else a copy that is. Caches keep the values a backend returns;
 * a value that is a view into a larger buffer (a backend's page or reply, or Node's shared pool of small buffers)
 * would keep all of that buffer alive, so it is copied into memory of its own (never the shared pool, whose size
 * differs between Node versions), while a value with memory of its own (classic-level returns those) is kept as it
 * is, without a copy per cached value. The caller must not mutate what it keeps, nor what it was given.
 * @internal
 */
export function ownBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(own);
  return own;
}
