import { corruption, isAkashicError } from '../errors.js';

/**
 * What a codec throws when FlatBuffers bytes behind a valid envelope do not decode: the AkashicError the decoder
 * raised itself (an unknown enum value, a wrong version), else AKASHIC_CORRUPTION naming the value and its kind,
 * with the parser's error as `cause`. The one decode guard of every `record/` codec.
 */
export function undecodable(what: string, kind: string, err: unknown): Error {
  return isAkashicError(err) ? err : corruption(`${what}: undecodable ${kind}`, err);
}
