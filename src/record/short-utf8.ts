import type { Builder } from 'flatbuffers';

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

/**
 * `builder.createString(s)` with the same bytes, without an intermediate array for short ASCII strings (ids,
 * keywords): their bytes are written straight into the builder (a put writes ~130 such strings; an array each was
 * about a fifth of the memory a put allocated). Anything else goes through `utf8Bytes`.
 */
export function createUtf8String(builder: Builder, s: string): number {
  const n = s.length;
  if (n > SHORT) return builder.createString(utf8Bytes(s));
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) > 0x7f) return builder.createString(utf8Bytes(s));
  // createString's layout: a zero terminator, then the bytes as a byte vector (written back to front), then the length.
  builder.addInt8(0);
  builder.startVector(1, n, 1);
  for (let i = n - 1; i >= 0; i--) builder.addInt8(s.charCodeAt(i));
  return builder.endVector();
}
