/**
 * What installing the package costs a user: packs this checkout (`npm pack`, using the `dist/` already built) and
 * installs the tarball into an empty project with the npm cache preferred (the registry is asked only for what the
 * cache lacks), then reports the size of `node_modules` and its largest packages. Optional peers are not installed,
 * as for a user who installs only `akashic`.
 *
 *   node dist/tools/first-hour/measure-install.js [--keep] [--json]
 *
 * With `--keep` the project is left in place and its path printed (to run measure-startup against the installed
 * copy with `--entry <project>/node_modules/akashic/dist/src/index.js`).
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MB = 1024 * 1024;

/** Bytes on disk under `path` (allocated blocks, as `du` counts), symbolic links not followed. */
function diskBytes(path: string): number {
  const st = lstatSync(path);
  let n = st.blocks * 512;
  if (st.isDirectory()) for (const e of readdirSync(path)) n += diskBytes(join(path, e));
  return n;
}

/** Top-level packages of a node_modules folder (scoped ones as `@scope/name`) with their size. */
function packageSizes(modules: string): { name: string; bytes: number }[] {
  const out: { name: string; bytes: number }[] = [];
  for (const e of readdirSync(modules)) {
    if (e.startsWith('.')) continue;
    if (e.startsWith('@')) for (const s of readdirSync(join(modules, e))) out.push({ name: `${e}/${s}`, bytes: diskBytes(join(modules, e, s)) });
    else out.push({ name: e, bytes: diskBytes(join(modules, e)) });
  }
  return out.sort((a, b) => b.bytes - a.bytes);
}

function npm(args: readonly string[], cwd: string): string {
  return execFileSync('npm', [...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function main(argv: readonly string[]): void {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'akashic-install-'));
  try {
    const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root)) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
    const tarball = packed[0];
    if (tarball === undefined) throw new Error('npm pack printed no tarball');
    const project = join(dir, 'project');
    execFileSync('mkdir', [project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'empty-project', version: '1.0.0', private: true }));
    npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--omit=peer', join(dir, tarball.filename)], project);
    const modules = join(project, 'node_modules');
    const total = diskBytes(modules);
    const sizes = packageSizes(modules);
    const report = {
      tarballMb: tarball.size / MB,
      unpackedMb: tarball.unpackedSize / MB,
      files: tarball.entryCount,
      installedMb: total / MB,
      packages: sizes.length,
      largest: sizes.slice(0, 12).map((p) => ({ name: p.name, mb: Math.round((p.bytes / MB) * 10) / 10 })),
      project: argv.includes('--keep') ? project : undefined,
    };
    if (argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
    else {
      console.log(`tarball ${report.tarballMb.toFixed(1)} MB (${report.files} files, ${report.unpackedMb.toFixed(1)} MB unpacked)`);
      console.log(`installed into an empty project: ${report.installedMb.toFixed(1)} MB in ${report.packages} packages; largest:`);
      for (const p of report.largest) console.log(`  ${p.mb.toFixed(1).padStart(6)} MB  ${p.name}`);
      if (report.project !== undefined) console.log(`kept: ${report.project}`);
    }
  } finally {
    if (!argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2));
