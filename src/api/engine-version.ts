/** The engine's version, recorded in the engine meta record and reported by `stats()` and `akashic --version`. */
export const ENGINE_VERSION = '0.1.0';
