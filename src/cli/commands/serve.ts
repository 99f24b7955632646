import type { Command } from 'commander';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../service/service-settings.js';
import { HTTP_SERVICE, importFeature } from '../../util/optional-packages.js';
import { example, ioOf, parsePositiveInt } from '../cli-context.js';

export function register(program: Command): void {
  program
    .command('serve')
    .description('serve the memory and the store over HTTP/JSON (OpenAPI at /openapi.json, MCP at /mcp) until SIGTERM or SIGINT')
    .requiredOption('--db <dir|url>', 'database directory (created if missing), or a redis:// or redis+cluster:// URL')
    .option('--host <host>', 'address to listen on; other than loopback only with API keys', DEFAULT_HOST)
    .option('--port <n>', 'port to listen on (0: any free port)', (v) => (v === '0' ? 0 : parsePositiveInt(v)), DEFAULT_PORT)
    .option('--keys <file>', 'API key file (JSON); or set AKASHIC_API_KEYS')
    .option('--max-body-bytes <n>', 'largest request body', parsePositiveInt)
    .option('--request-timeout-ms <n>', 'answer AKASHIC_TIMEOUT after this long', parsePositiveInt)
    .addHelpText('after', example('akashic serve --db ./memory --port 8787'))
    .action(async (opts: { db: string; host: string; port: number; keys?: string; maxBodyBytes?: number; requestTimeoutMs?: number }, cmd: Command) => {
      const io = ioOf(cmd);
      // The service's packages are optional: loaded here, so every other command runs without them.
      const { closeOnSignals, loadApiKeys, startService } = await importFeature(HTTP_SERVICE, () => import('../../service/index.js'));
      const service = await startService({
        db: opts.db,
        host: opts.host,
        port: opts.port,
        keys: await loadApiKeys(opts.keys),
        ...(opts.maxBodyBytes === undefined ? {} : { maxBodyBytes: opts.maxBodyBytes }),
        ...(opts.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: opts.requestTimeoutMs }),
      });
      io.stdout.write(`akashic serve: listening on ${service.url}\n`);
      await new Promise<void>((resolve, reject) => {
        const detach = closeOnSignals(service.close, (err) => {
          detach();
          if (err === null) resolve();
          else reject(err);
        });
      });
      io.stdout.write('akashic serve: closed\n');
    });
}
