#!/usr/bin/env node
// Thin shim: the CLI lives in dist/src/cli/main.js (build with `npm run build`).
const { main } = await import('../dist/src/cli/main.js');
process.exitCode = await main(process.argv);
