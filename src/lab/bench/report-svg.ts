/** A self-contained SVG chart of a BenchResult: blocks per request, cold p95 latency, and amplification. */
import type { BenchResult } from './bench-figures.js';
import { POLICY_NAMES } from './layout-policies.js';
import { PEER_NAMES } from './peer-stores.js';

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

interface Bar {
  readonly label: string;
  readonly value: number | null;
  /** A tick drawn on the bar (the lower bound). */
  readonly marker?: number | null;
  readonly colour: string;
}

const LABEL_W = 170;
const BAR_W = 300;
const ROW = 18;

function panel(title: string, bars: readonly Bar[], unit: string, y0: number): { svg: string; height: number } {
  const max = Math.max(1e-9, ...bars.flatMap((b) => [b.value ?? 0, b.marker ?? 0]));
  const parts = [`<text x="0" y="${y0 + 14}" font-weight="bold">${esc(title)}</text>`];
  bars.forEach((b, i) => {
    const y = y0 + 24 + i * ROW;
    parts.push(`<text x="${LABEL_W - 6}" y="${y + 12}" text-anchor="end">${esc(b.label)}</text>`);
    if (b.value === null) {
      parts.push(`<text x="${LABEL_W}" y="${y + 12}" fill="#888">n/a</text>`);
      return;
    }
    const w = (b.value / max) * BAR_W;
    parts.push(`<rect x="${LABEL_W}" y="${y + 2}" width="${w.toFixed(1)}" height="${ROW - 5}" fill="${b.colour}"/>`);
    if (b.marker !== undefined && b.marker !== null) {
      const mx = LABEL_W + (b.marker / max) * BAR_W;
      parts.push(`<line x1="${mx.toFixed(1)}" x2="${mx.toFixed(1)}" y1="${y}" y2="${y + ROW - 1}" stroke="#000" stroke-width="2"/>`);
    }
    parts.push(`<text x="${(LABEL_W + w + 4).toFixed(1)}" y="${y + 12}">${b.value.toFixed(2)}${esc(unit)}</text>`);
  });
  return { svg: parts.join(''), height: 24 + bars.length * ROW + 14 };
}

const POLICY_COLOUR: Record<string, string> = {
  'append-only': '#9e9e9e',
  'semantic-only': '#8d6e63',
  akashic: '#1e88e5',
  'no-relocation': '#7cb342',
  'no-gc': '#fb8c00',
  'aggressive-relocation': '#e53935',
  'leveldb-naive': '#5e35b1',
  sqlite: '#00897b',
  'sqlite-fts5': '#c0ca33',
};

export function benchSvg(r: BenchResult): string {
  const panels: { svg: string; height: number }[] = [];
  let y = 0;
  const add = (title: string, bars: Bar[], unit: string): void => {
    const p = panel(title, bars, unit, y);
    panels.push(p);
    y += p.height;
  };
  add(
    '(a) blocks per request (recall sets; black tick = lower bound)',
    POLICY_NAMES.map((n) => ({ label: n, value: r.policies[n].blocksPerRequest, marker: r.policies[n].lowerBound, colour: POLICY_COLOUR[n]! })),
    '',
  );
  const cold = r.meta.pageCacheDropped ? 'cold' : 'page cache not dropped';
  add(
    `(b) p95 read latency per request, ms (${cold})`,
    [...POLICY_NAMES.map((n) => ({ label: n, value: r.policies[n].p95ColdMs, colour: POLICY_COLOUR[n]! })), ...PEER_NAMES.map((n) => ({ label: n, value: r.peers[n].p95ColdMs, colour: POLICY_COLOUR[n]! }))],
    ' ms',
  );
  add('(c) space amplification', POLICY_NAMES.map((n) => ({ label: n, value: r.policies[n].spaceAmp, colour: POLICY_COLOUR[n]! })), '×');
  add('(d) write amplification', POLICY_NAMES.map((n) => ({ label: n, value: r.policies[n].writeAmp, colour: POLICY_COLOUR[n]! })), '×');
  const width = LABEL_W + BAR_W + 90;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${y}" width="${width}" height="${y}" font-family="sans-serif" font-size="11"><rect width="100%" height="100%" fill="#fff"/>${panels.map((p) => p.svg).join('')}</svg>\n`;
}
