/**
 * zstd, loaded on the first frame compressed or decompressed rather than with the package: the native addon costs
 * a few megabytes of resident memory, which a process that imports Akashic and has not read or written a frame yet
 * (a CLI printing its help, a program that opens its store later) need not pay. Both calls are asynchronous anyway,
 * so the one-time import adds no new suspension point to their callers' contracts.
 * @internal
 */
type ZstdModule = typeof import('@mongodb-js/zstd');

let loading: Promise<ZstdModule> | undefined;

function zstd(): Promise<ZstdModule> {
  loading ??= import('@mongodb-js/zstd');
  return loading;
}

/** zstd-compresses `data` at `level` (see the store option `zstdLevel`). */
export async function compress(data: Buffer, level?: number): Promise<Buffer> {
  return (await zstd()).compress(data, level);
}

/** Decompresses one or more concatenated zstd frames. */
export async function decompress(data: Buffer): Promise<Buffer> {
  return (await zstd()).decompress(data);
}
