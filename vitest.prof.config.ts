import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { root: '/work/w10', include: ['test/reliability/public-api*.slow.test.ts'], testTimeout: 600_000, hookTimeout: 60_000, pool: 'forks', execArgv: process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/w10/prof', '--cpu-prof-interval=500'] : [] } });
