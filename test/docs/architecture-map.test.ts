/**
 * docs/architecture.md is a map of the code: every file, folder and symbol it names in backticks must exist, so
 * the page fails this test the day one is renamed or removed. Paths resolve from the repository root or `src/`
 * (a bare file name anywhere under `src/`); `Class.member` needs the class declared and the member in its file;
 * other identifiers must occur in the sources.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from '../architecture/module-graph.js';

const DOC = 'docs/architecture.md';
const text = readFileSync(join(ROOT, DOC), 'utf8');
/** The prose: fenced blocks (the layer drawing) are checked by the folder test below, not token by token. */
const prose = text.replace(/^```[^]*?^```$/gm, '');
const tokens = [...new Set([...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!))];

const SOURCES = [...sourceFiles(join(ROOT, 'src'))];
const sourceText = new Map(SOURCES.map((f) => [f, readFileSync(f, 'utf8')]));
/** Where other names may live: the sources, the tests and tools that exercise them, the package manifest. */
const allSource = [
  ...sourceText.values(),
  ...[...sourceFiles(join(ROOT, 'test')), ...sourceFiles(join(ROOT, 'tools'))].map((f) => readFileSync(f, 'utf8')),
  readFileSync(join(ROOT, 'package.json'), 'utf8'),
].join('\n');
/** Names the page cites from elsewhere: LevelDB's compaction steps, TypeScript's module resolution mode. */
const EXTERNAL = new Set(['PickCompaction', 'InstallCompactionResults', 'node10']);
const byBasename = new Map<string, string[]>();
for (const f of SOURCES) byBasename.set(basename(f), [...(byBasename.get(basename(f)) ?? []), f]);

const PATH = /^[\w.-]+(\/[\w.*-]*)*$/;
const FILE = /\.(ts|js|md|json|sh)$|^LICENSE$/;
const IDENT = /^[A-Za-z_$][\w$]*$/;
const MEMBER = /^([A-Z][\w$]*)\.([a-z_$][\w$]*)(\(\))?$/;
const SEAM = /^\w+\[(\w+)\](\.\w+)?(\(\))?$/;

function pathExists(p: string): boolean {
  const clean = p.replace(/\/$/, '');
  for (const base of ['', 'src/', 'src/store/', 'src/lab/']) {
    const full = join(ROOT, base + clean);
    if (existsSync(full) && (p.endsWith('/') ? statSync(full).isDirectory() : true)) return true;
  }
  return !clean.includes('/') && byBasename.has(clean);
}

const wordIn = (name: string, haystack: string): boolean => new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(haystack);

/** The files declaring `name`, and those declaring what a type alias `type name = Other;` names. */
function declaredIn(name: string): string[] {
  const decl = new RegExp(`(class|interface|function|const|type) ${name}\\b`);
  const alias = new RegExp(`type ${name} = ([A-Z][\\w$]*);`);
  return SOURCES.filter((f) => decl.test(sourceText.get(f)!)).flatMap((f) => {
    const to = alias.exec(sourceText.get(f)!)?.[1];
    return to === undefined ? [f] : [f, ...declaredIn(to)];
  });
}

describe(`${DOC} names only what exists`, () => {
  it('reads the page (it names files, folders and symbols)', () => {
    expect(tokens.filter((t) => FILE.test(t)).length).toBeGreaterThan(50);
    expect(tokens.filter((t) => MEMBER.test(t)).length).toBeGreaterThan(5);
  });

  it('every file or folder it names exists', () => {
    const paths = tokens.filter((t) => PATH.test(t) && (FILE.test(t) || t.endsWith('/')) && !t.includes('*'));
    expect(paths.filter((p) => !pathExists(p))).toEqual([]);
  });

  it('every Class.member it names is declared, with the member in the declaring file', () => {
    const missing = tokens
      .filter((t) => !FILE.test(t))
      .map((t) => MEMBER.exec(t))
      .filter((m): m is RegExpExecArray => m !== null)
      .filter(([, cls, member]) => {
        const files = declaredIn(cls!);
        return files.length === 0 || !files.some((f) => wordIn(member!, sourceText.get(f)!));
      })
      .map((m) => m[0]);
    expect(missing).toEqual([]);
  });

  it('every other identifier it names occurs in the sources, seams included', () => {
    const names = tokens.flatMap((t) => {
      const seam = SEAM.exec(t);
      if (seam !== null) return [seam[1]!];
      const call = /^([A-Za-z_$][\w$]*)\(\)$/.exec(t);
      if (call !== null) return [call[1]!];
      return IDENT.test(t) ? [t] : [];
    });
    expect(names.filter((n) => !EXTERNAL.has(n) && !wordIn(n, allSource))).toEqual([]);
  });

  it('every folder of the layer drawing is a folder of src/', () => {
    const drawing = /^```\n([^]*?)^```$/m.exec(text)![1]!;
    const folders = [...drawing.matchAll(/^ +((?:[\w-]+\/ ?)+)/gm)].flatMap((m) => m[1]!.trim().split(/\s+/));
    expect(folders.length).toBeGreaterThan(10);
    const known = new Set(SOURCES.map((f) => relative(join(ROOT, 'src'), f).split('/').slice(0, -1)).flatMap((parts) => parts.map((p) => p + '/')));
    expect(folders.filter((f) => !known.has(f))).toEqual([]);
  });
});
