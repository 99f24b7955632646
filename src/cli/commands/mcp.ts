import type { Command } from 'commander';
import { AkashicStore } from '../../engine/akashic-store.js';
import { AkashicMemory } from '../../memattention/index.js';
import { storeLocation } from '../../service/service-settings.js';
import { MCP_SERVER, importFeature } from '../../util/optional-packages.js';
import { example } from '../cli-context.js';

export function register(program: Command): void {
  program
    .command('mcp')
    .description('serve the memory as MCP tools (remember, recall, forget, history) over stdin/stdout, for an assistant that spawns it')
    .requiredOption('--db <dir|url>', 'database directory (created if missing), or a redis:// or redis+cluster:// URL')
    .addHelpText('after', example('akashic mcp --db ~/.akashic/memory'))
    .action(async (opts: { db: string }) => {
      // Loaded before the store opens: a missing package is reported without touching the database.
      const { serveMcpStdio } = await importFeature(MCP_SERVER, () => import('../../mcp/index.js'));
      const store = await AkashicStore.open(storeLocation(opts.db));
      const memory = new AkashicMemory(store);
      try {
        await serveMcpStdio({ store, memory });
      } finally {
        await memory.close();
        await store.close();
      }
    });
}
