import { blockKey } from '../api/key-strings.js';
import type { BlockLayout } from './block-layout.js';
import { phiBucketLabel } from '../util/text-format.js';

/**
 * Inline SVG pictures for the HTML report. Pure functions from data to markup; no external resources (no
 * xmlns or xlink URLs are needed inside an HTML5 document), so the page is self-contained.
 */

/** Escapes text for HTML and SVG content and attribute values. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Distinct, stable colours: the i-th session gets hue i × golden angle. */
export function sessionColour(i: number): string {
  const hue = (i * 137.508) % 360;
  const light = 48 + (Math.floor(i / 12) % 3) * 8;
  return `hsl(${hue.toFixed(1)} 62% ${light}%)`;
}

/** Key of a session for colouring: sessions of different users are different sessions. */
export function sessionKey(userId: string, sessionId: string): string {
  return userId + '\u0000' + sessionId;
}

const ROW = 18;
const GAP = 4;
const LABEL_W = 230;
const BAR_W = 640;
const TAIL_W = 130;

/**
 * The block layout: one horizontal bar per block, one cell per slot of the block capacity. Live slots are
 * coloured by session, invalid (dead) slots are grey and hatched, never-written capacity of open blocks is an
 * outline. Blocks are grouped under a row naming their user. Each live cell has a tooltip (`<title>`).
 */
export function blockLayoutSvg(blocks: readonly BlockLayout[], colours: ReadonlyMap<string, string>): string {
  const cells = Math.max(1, ...blocks.map((b) => Math.max(b.capacity, b.totalSlots)));
  const cw = BAR_W / cells;
  const parts: string[] = [];
  let y = 0;
  let user: string | null = null;
  for (const b of blocks) {
    const i = b.info;
    if (i.userId !== user) {
      user = i.userId;
      parts.push(`<text class="user" x="0" y="${y + 14}">user ${esc(JSON.stringify(user))}</text>`);
      y += ROW + GAP;
    }
    const live = new Map(b.chunks.map((c) => [c.index, c]));
    parts.push(`<g transform="translate(0 ${y})">`);
    parts.push(`<text class="label" x="0" y="13">${esc(blockKey(i.blockId))} <tspan class="dim">${esc(i.state)} · ${esc(i.origin)}</tspan></text>`);
    for (let s = 0; s < cells; s++) {
      const x = (LABEL_W + s * cw).toFixed(2);
      const w = Math.max(1, cw - 1).toFixed(2);
      const c = live.get(s);
      if (c !== undefined) {
        const fill = colours.get(sessionKey(i.userId, c.sessionId)) ?? '#888';
        parts.push(`<rect x="${x}" y="1" width="${w}" height="${ROW - 2}" fill="${fill}"><title>${esc(`${c.sessionId}/${c.chunkId} v${c.version} (frame ${c.frame}, slot ${c.slot})`)}</title></rect>`);
      } else if (s < b.totalSlots) {
        parts.push(`<rect x="${x}" y="1" width="${w}" height="${ROW - 2}" class="dead"><title>invalid slot ${s}</title></rect>`);
      } else if (s < b.capacity) {
        parts.push(`<rect x="${x}" y="1.5" width="${w}" height="${ROW - 3}" class="free"/>`);
      }
    }
    parts.push(`<text class="label" x="${LABEL_W + BAR_W + 8}" y="13">φ ${b.phi.toFixed(2)} · ${i.liveSlots}/${b.totalSlots}</text>`);
    parts.push('</g>');
    y += ROW + GAP;
  }
  const width = LABEL_W + BAR_W + TAIL_W;
  const defs =
    '<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
    '<rect width="4" height="4" fill="#e4e4e4"/><line x1="0" y1="0" x2="0" y2="4" stroke="#b8b8b8" stroke-width="1.5"/></pattern></defs>';
  return `<svg class="layout" viewBox="0 0 ${width} ${Math.max(y, ROW)}" width="${width}" height="${Math.max(y, ROW)}" role="img" aria-label="block layout">${defs}${parts.join('')}</svg>`;
}

/** The φ histogram as a bar chart: ten buckets, count above each bar, colour from green (clean) to red (mostly dead). */
export function phiHistogramSvg(histogram: readonly number[]): string {
  const W = 620;
  const H = 260;
  const left = 40;
  const bottom = 40;
  const top = 20;
  const plotH = H - bottom - top;
  const slot = (W - left - 10) / histogram.length;
  const max = Math.max(1, ...histogram);
  const parts: string[] = [];
  // Whole-number ticks (counts of blocks), placed at their true height.
  for (const v of new Set([0, Math.round(max / 2), max])) {
    const y = top + plotH - (v / max) * plotH;
    parts.push(`<line x1="${left}" x2="${W - 10}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" class="grid"/>`);
    parts.push(`<text x="${left - 6}" y="${(y + 4).toFixed(1)}" class="axis" text-anchor="end">${v}</text>`);
  }
  histogram.forEach((n, i) => {
    const h = (n / max) * plotH;
    const x = left + i * slot + 4;
    const y = top + plotH - h;
    const hue = 120 - i * 12;
    parts.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(slot - 8).toFixed(1)}" height="${h.toFixed(1)}" fill="hsl(${hue} 60% 50%)"><title>${esc(phiBucketLabel(i))}: ${n} blocks</title></rect>`);
    parts.push(`<text x="${(x + (slot - 8) / 2).toFixed(1)}" y="${(y - 4).toFixed(1)}" class="count" text-anchor="middle">${n}</text>`);
    parts.push(`<text x="${(x + (slot - 8) / 2).toFixed(1)}" y="${H - bottom + 16}" class="axis" text-anchor="middle">${(i / 10).toFixed(1)}</text>`);
  });
  parts.push(`<text x="${(left + W - 10) / 2}" y="${H - 6}" class="axis" text-anchor="middle">φ (invalid slots ÷ slots), bucket lower bound</text>`);
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="phi histogram">${parts.join('')}</svg>`;
}

/** One stacked horizontal bar of labelled parts (e.g. blocks by state). */
export function stackedBarSvg(parts: readonly { label: string; value: number; colour: string }[], width = 620): string {
  const total = parts.reduce((a, p) => a + p.value, 0);
  const H = 46;
  const out: string[] = [];
  let x = 0;
  for (const p of parts) {
    const w = total === 0 ? 0 : (p.value / total) * width;
    if (w > 0) out.push(`<rect x="${x.toFixed(1)}" y="0" width="${w.toFixed(1)}" height="22" fill="${p.colour}"><title>${esc(p.label)}: ${p.value}</title></rect>`);
    x += w;
  }
  let lx = 0;
  for (const p of parts) {
    out.push(`<rect x="${lx}" y="30" width="12" height="12" fill="${p.colour}"/><text x="${lx + 16}" y="40" class="axis">${esc(p.label)} ${p.value}</text>`);
    lx += 150;
  }
  if (total === 0) out.push(`<rect x="0" y="0" width="${width}" height="22" class="free"/>`);
  return `<svg viewBox="0 0 ${width} ${H}" width="${width}" height="${H}" role="img">${out.join('')}</svg>`;
}
