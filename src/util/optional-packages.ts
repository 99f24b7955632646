/**
 * The features whose packages are optional peer dependencies, and the one way to load them. The embedded store and
 * memory need none of them; the HTTP service, the MCP server and the Redis backend each bring a few packages (about
 * 30 MB installed together) that a user who embeds Akashic would otherwise carry. Each feature's modules are
 * imported on first use through `importFeature`, which turns a missing package into a typed error that says what to
 * install.
 * @internal
 */
import { AkashicError } from '../errors.js';

/** A feature and the packages (with the version ranges the package's peerDependencies declare) it needs. */
export interface OptionalFeature {
  /** What the user asked for, as the error message names it, e.g. `akashic serve (the HTTP service)`. */
  readonly name: string;
  readonly packages: Readonly<Record<string, string>>;
}

/** `akashic serve` and `startService`: REST routes, OpenAPI, MCP over HTTP and Prometheus metrics. */
export const HTTP_SERVICE: OptionalFeature = {
  name: 'the HTTP service (akashic serve)',
  packages: {
    hono: '^4.13.19',
    '@hono/node-server': '^2.1.9',
    '@hono/zod-openapi': '^1.6.3',
    '@modelcontextprotocol/sdk': '^1.32.2',
    'prom-client': '^15.1.3',
  },
};

/** `akashic mcp`: the memory as MCP tools over stdin/stdout. */
export const MCP_SERVER: OptionalFeature = {
  name: 'the MCP server (akashic mcp)',
  packages: { '@modelcontextprotocol/sdk': '^1.32.2' },
};

/** A store opened by `redis://` or `redis+cluster://` URL. */
export const REDIS_BACKEND: OptionalFeature = {
  name: 'the Redis backend (a redis:// or redis+cluster:// store)',
  packages: { ioredis: '^6.0.0' },
};

/** Every optional feature, for the check that their ranges match the package's peerDependencies. */
export const OPTIONAL_FEATURES: readonly OptionalFeature[] = [HTTP_SERVICE, MCP_SERVER, REDIS_BACKEND];

/** The command that installs a feature's packages. */
export function installCommand(feature: OptionalFeature): string {
  return `npm install ${Object.entries(feature.packages)
    .map(([name, range]) => `${name}@${range}`)
    .join(' ')}`;
}

/**
 * Runs `load` (a dynamic import of the feature's modules). When it fails because one of the feature's packages is
 * not installed, throws AKASHIC_MISSING_PACKAGE naming the feature and the install command, with the loader's error
 * as `cause`; any other failure is rethrown as it is.
 */
export async function importFeature<T>(feature: OptionalFeature, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const missing = missingPackage(err, Object.keys(feature.packages));
    if (missing === undefined) throw err;
    throw new AkashicError('AKASHIC_MISSING_PACKAGE', `${feature.name} needs the optional package '${missing}', which is not installed: ${installCommand(feature)}`, {
      cause: err,
    });
  }
}

/** The package among `names` that a module-not-found error is about, if it is about one of them. */
function missingPackage(err: unknown, names: readonly string[]): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const message = String((err as { message?: unknown }).message);
  // Node names the package in quotes: "Cannot find package 'hono' imported from …" (ESM), "Cannot find module 'hono'" (CJS).
  return names.find((n) => message.includes(`'${n}'`) || message.includes(`'${n}/`) || message.includes(`"${n}"`));
}
