import { writeFile } from 'node:fs/promises';
import type { AkashicStore } from '../engine/akashic-store.js';
import { readOnlyScans } from '../engine/internal-seams.js';
import type { EngineMeta } from '../record/engine-records.js';
import type { StoreStats } from '../api/reports.js';
import { blockLayouts, type BlockLayout } from './block-layout.js';
import { blockLayoutSvg, esc, phiHistogramSvg, sessionColour, sessionKey, stackedBarSvg } from './svg-charts.js';
import { formatBytes, formatRatio } from '../util/text-format.js';

export interface ReportData {
  readonly title: string;
  readonly stats: StoreStats;
  readonly meta: EngineMeta;
  /** The first `maxBlocks` blocks of the layout (user order, then block id order). */
  readonly blocks: BlockLayout[];
  /** All non-released blocks, drawn or not. */
  readonly blocksTotal: number;
  /** Sessions of the drawn blocks' live chunks, in first-seen order, with their colours. */
  readonly colours: ReadonlyMap<string, string>;
}

export interface ReportOptions {
  readonly title?: string;
  /** Blocks drawn in the layout picture; the rest are counted. Default 400. */
  readonly maxBlocks?: number;
}

export async function collectReport(store: AkashicStore, opts: ReportOptions = {}): Promise<ReportData> {
  const maxBlocks = opts.maxBlocks ?? 400;
  const stats = await store.stats();
  const blocks: BlockLayout[] = [];
  let blocksTotal = 0;
  const colours = new Map<string, string>();
  for await (const b of blockLayouts(store)) {
    blocksTotal++;
    if (blocks.length >= maxBlocks) continue;
    blocks.push(b);
    for (const c of b.chunks) {
      const k = sessionKey(b.info.userId, c.sessionId);
      if (!colours.has(k)) colours.set(k, sessionColour(colours.size));
    }
  }
  return { title: opts.title ?? 'Akashic database', stats, meta: store[readOnlyScans].meta, blocks, blocksTotal, colours };
}

const CSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px 32px; color: #1d2330; background: #fafbfc; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #dde2ea; padding-bottom: 4px; }
.sub { color: #5b6577; margin: 0 0 16px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { background: #fff; border: 1px solid #dde2ea; border-radius: 6px; padding: 10px 14px; flex: 1 1 130px; }
.card .v { font-size: 22px; font-weight: 600; }
.card .k { color: #5b6577; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .d { color: #5b6577; font-size: 12px; }
table.kv { border-collapse: collapse; background: #fff; border: 1px solid #dde2ea; }
table.kv td { padding: 3px 12px; border-bottom: 1px solid #eef1f5; font-variant-numeric: tabular-nums; }
table.kv td:first-child { color: #5b6577; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 8px 0 12px; font-size: 12px; }
.legend span.sw { display: inline-block; width: 12px; height: 12px; margin-right: 5px; vertical-align: -2px; border-radius: 2px; }
.note { color: #5b6577; font-size: 13px; max-width: 860px; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font: 11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; fill: #1d2330; }
svg text.user { font-weight: 600; font-size: 12px; }
svg .dim { fill: #7a8496; }
svg .axis { fill: #5b6577; }
svg .count { font-weight: 600; }
svg .grid { stroke: #e3e7ee; stroke-width: 1; }
svg rect.dead { fill: url(#hatch); }
svg rect.free { fill: #fff; stroke: #c5ccd8; stroke-dasharray: 2 2; stroke-width: 1; }
.panel { background: #fff; border: 1px solid #dde2ea; border-radius: 6px; padding: 12px; overflow-x: auto; }
`;

function card(k: string, v: string, d = ''): string {
  return `<div class="card"><div class="k">${esc(k)}</div><div class="v">${esc(v)}</div>${d === '' ? '' : `<div class="d">${esc(d)}</div>`}</div>`;
}

/** The whole report as one self-contained HTML document (inline CSS and SVG, no scripts, no external URLs). */
export function renderReport(d: ReportData): string {
  const s = d.stats;
  const bpr = s.blocksPerRetrieval;
  const legendItems = [...d.colours].slice(0, 80).map(([k, c]) => {
    const [user, session] = k.split('\u0000') as [string, string];
    return `<span><span class="sw" style="background:${c}"></span>${esc(user)} / ${esc(session)}</span>`;
  });
  if (d.colours.size > 80) legendItems.push(`<span>… ${d.colours.size - 80} more sessions</span>`);
  legendItems.push('<span><span class="sw" style="background:#e4e4e4;border:1px solid #b8b8b8"></span>invalid slot</span>');
  legendItems.push('<span><span class="sw" style="background:#fff;border:1px dashed #c5ccd8"></span>unused capacity</span>');
  const rows: [string, string][] = [
    ['format version', `${s.formatVersion} (engine ${s.engineVersion})`],
    ['created', new Date(d.meta.createdAt).toISOString()],
    ['block capacity', `${d.meta.blockCapacity} slots, ${formatBytes(d.meta.blockMaxBytes)}`],
    ['users / sessions', `${s.users} / ${s.sessions}`],
    ['chunks', `${s.chunks} live (${s.updatedChunks} updated), ${s.deletedChunks} deleted`],
    ['live bytes', formatBytes(s.liveBytes)],
    ['stored raw / compressed', `${formatBytes(s.storedRawBytes)} / ${formatBytes(s.storedBytes)}`],
    ['on disk', formatBytes(s.diskBytes)],
    ['logical ingested / engine written', `${formatBytes(s.logicalBytesIngested)} / ${formatBytes(s.engineBytesWritten)}`],
    ['relocations', `${s.relocations} (${s.relocatedChunks} chunks)`],
    ['gc', `${s.gcRuns} runs, ${s.gcMovedChunks} chunks moved`],
    ['blocks created / released', `${s.blocksCreated} / ${s.blocksReleased}`],
  ];
  const truncated =
    d.blocksTotal > d.blocks.length ? `<p class="note">Showing the first ${d.blocks.length} of ${d.blocksTotal} blocks.</p>` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(d.title)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>${esc(d.title)}</h1>
<p class="sub">Akashic storage report: how the live chunks sit in blocks, how much of each block is dead, and what that costs.</p>
<div class="cards">
${card('live chunks', String(s.chunks), `${s.deletedChunks} deleted, ${s.updatedChunks} updated`)}
${card('blocks', String(s.blocks), `${s.blocksByState.open} open, ${s.blocksByState.sealed} sealed, ${s.blocksByState.released} released`)}
${card('space amplification', formatRatio(s.spaceAmplification), `stored/live ${formatRatio(s.storedSpaceRatio)}`)}
${card('write amplification', formatRatio(s.writeAmplification))}
${card('blocks per retrieval', bpr === null ? 'n/a' : bpr.toFixed(2), `${s.retrievals} retrievals`)}
${card('on disk', formatBytes(s.diskBytes))}
</div>

<h2>φ histogram</h2>
<p class="note">Open and sealed blocks by their invalid-slot ratio φ, in ten buckets. Blocks at or above the GC threshold θ are GC candidates once sealed.</p>
<div class="panel">${phiHistogramSvg(s.phiHistogram)}</div>

<h2>Blocks by state</h2>
<div class="panel">${stackedBarSvg([
    { label: 'open', value: s.blocksByState.open, colour: '#5b9bd5' },
    { label: 'sealed', value: s.blocksByState.sealed, colour: '#2e6f40' },
    { label: 'released', value: s.blocksByState.released, colour: '#c9ced8' },
  ])}</div>

<h2>Blocks per retrieval</h2>
<p class="note">Mean over all ${s.retrievals} retrievals since the database was created: <strong>${bpr === null ? 'n/a (no retrieval yet)' : bpr.toFixed(2)}</strong> distinct blocks touched per request. A per-request history is not recorded by the engine, so no curve over time can be drawn.</p>

<h2>Figures</h2>
<table class="kv">${rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`).join('')}</table>

<h2>Block layout</h2>
<p class="note">Each bar is one block; each cell one slot of the block capacity. Live chunks are coloured by session; hatched grey slots hold dead versions (updated or deleted chunks) that GC reclaims; dashed outlines are capacity an open block has not filled yet. φ is the block's invalid-slot ratio.</p>
<div class="legend">${legendItems.join('')}</div>
<div class="panel">${d.blocks.length === 0 ? '<p class="note">No blocks hold data.</p>' : blockLayoutSvg(d.blocks, d.colours)}</div>
${truncated}
</body>
</html>
`;
}

/**
 * Writes the HTML report of a store to `outPath`.
 *
 * @example
 *   await writeHtmlReport(store, 'report.html', { title: 'memory' });
 */
export async function writeHtmlReport(store: AkashicStore, outPath: string, opts: ReportOptions = {}): Promise<ReportData> {
  const data = await collectReport(store, opts);
  await writeFile(outPath, renderReport(data), 'utf8');
  return data;
}
