const TEXT_ENCODER = new TextEncoder();

/** Strings longer than this go straight to TextEncoder (its per-call cost is then small against the copy). */
const SHORT = 64;

/**
 * The UTF-8 bytes of `s`, for FlatBuffers' `createString`: short ASCII strings (ids, keywords) are copied by a
 * plain loop, which is several times cheaper than a `TextEncoder.encode` call per string (a put encodes its ~64
 * keywords twice: record and directory entry); anything else goes through TextEncoder. Same bytes either way.
 * The result is fresh and owned by the caller.
 */
export function utf8Bytes(s: string): Uint8Array {
  const n = s.length;
  if (n > SHORT) return TEXT_ENCODER.encode(s);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return TEXT_ENCODER.encode(s);
    out[i] = c;
  }
  return out;
}
