/** The markdown rendering of a BenchResult: the tables docs/benchmarks.md quotes. */
import type { BenchResult, SweepPoint } from './bench-figures.js';
import { POLICY_NAMES } from './layout-policies.js';
import { PEER_NAMES } from './peer-stores.js';

function n(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);
}

function bytes(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (x >= 1 << 20) return `${(x / (1 << 20)).toFixed(2)} MiB`;
  if (x >= 1 << 10) return `${(x / (1 << 10)).toFixed(1)} KiB`;
  return `${Math.round(x)} B`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function sweepTable(points: readonly SweepPoint[], label: string): string {
  return table(
    [label, 'policy', 'blocks/request', 'p95', 'lower bound', 'space amp', 'write amp', 'relocated chunks', 'GC-moved chunks', 'chunks/block'],
    points.map((p) => [String(p.value), p.policy, n(p.blocksPerRequest), n(p.blocksPerRequestP95, 0), n(p.lowerBound), n(p.spaceAmp, 3), n(p.writeAmp, 3), String(p.relocatedChunks), String(p.gcMovedChunks), n(p.chunksPerBlock, 1)]),
  );
}

export function benchMarkdown(r: BenchResult): string {
  const m = r.meta;
  const out: string[] = [];
  out.push(`Source: \`${m.source}\` — ${m.users} users, ${m.chunks} chunks written, ${m.requests} requests (${m.emptyRecallRequests} with an empty recall set, not replayed; ${m.oracleRequests} with an oracle set).`);
  if (m.select.variant !== 'lexical') out.push(`SELECT of the trace: **${m.select.variant}**${m.select.experiment ? ' (an experiment)' : ''}, embedder \`${m.select.embedder ?? '–'}\` — ${m.select.note}.`);
  out.push(`Mean set size: recall ${n(m.meanRecallSetSize)}, oracle ${n(m.meanOracleSetSize)}; evidence fully in the top-5 recall for ${m.evidenceRecall === null ? '–' : (m.evidenceRecall * 100).toFixed(1) + '%'} of the questions with evidence.`);
  out.push(`Cold reads: ${m.pageCacheDropped ? 'page cache **dropped**' : 'page cache **not dropped**'} — ${m.pageCacheNote}; ${m.coldSamples} sampled requests, every store read them in rotating order.`);
  out.push(`Parameters: ${Object.entries(m.params).map(([k, v]) => `${k}=${v}`).join(', ')}.`);
  out.push(`Machine: ${m.machine.nproc} cores, ${m.machine.memGiB} GiB, node ${m.machine.node}, ${m.machine.platform}, read-ahead KiB ${m.machine.readAheadKb ?? '–'}.`);
  out.push(`Time: ${Object.entries(m.timingsMs).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(', ')}.`);
  out.push('');
  out.push('### Layout policies (recall sets; cost taken before the relocation a request triggers)');
  out.push('');
  out.push(
    table(
      ['policy', 'blocks/request', 'p95', 'lower bound', '× append-only', 'cold fetch p50 ms (by slot)', 'cold fetch p95 ms', 'by ref p50 ms', 'cold recall p50 ms', 'read bytes/request (mean)', '(p50)', 'engine bytes/request', 'space amp', 'write amp', 'device WA', 'relocated', 'GC-moved', 'chunks/block'],
      POLICY_NAMES.filter((name) => r.policies[name].available).map((name) => {
        const p = r.policies[name];
        return [name, n(p.blocksPerRequest), n(p.blocksPerRequestP95, 0), n(p.lowerBound), n(p.blocksRatioToAppendOnly), n(p.p50ColdMs), n(p.p95ColdMs), n(p.p50ColdFetchByRefMs), n(p.p50ColdRecallMs), bytes(p.bytesReadPerRequest), bytes(p.bytesReadPerRequestP50), bytes(p.engineBytesReadPerRequest), n(p.spaceAmp, 3), n(p.writeAmp, 3), n(p.deviceWriteAmp), String(p.relocatedChunks), String(p.gcMovedChunks), n(p.chunksPerBlock, 1)];
      }),
    ),
  );
  out.push('');
  out.push('### Layout policies driven by the oracle sets (chunks holding the evidence)');
  out.push('');
  out.push(
    table(
      ['policy', 'requests', 'blocks/request', 'p95', 'lower bound', 'space amp', 'write amp'],
      POLICY_NAMES.filter((name) => r.policies[name].available).map((name) => {
        const o = r.policies[name].oracle;
        return [name, String(o.requests), n(o.blocksPerRequest), n(o.blocksPerRequestP95, 0), n(o.lowerBound), n(o.spaceAmp, 3), n(o.writeAmp, 3)];
      }),
    ),
  );
  out.push('');
  out.push('### Peers on the same requests (ratios: peer ÷ akashic)');
  out.push('');
  const ak = r.policies.akashic;
  out.push(
    table(
      ['store', 'cold fetch p50 ms', 'cold fetch p95 ms', 'cold recall p50 ms', 'cold recall p95 ms', 'read bytes/request (mean)', '(p50)', 'bytes/recall', 'disk bytes', 'device WA', 'fetch p50 ×', 'fetch p95 ×', 'recall p50 ×', 'bytes ×'],
      [
        ['akashic', n(ak.p50ColdMs), n(ak.p95ColdMs), n(ak.p50ColdRecallMs), n(ak.p95ColdRecallMs), bytes(ak.bytesReadPerRequest), bytes(ak.bytesReadPerRequestP50), bytes(ak.bytesReadPerRecall), bytes(ak.diskBytes), n(ak.deviceWriteAmp), '1', '1', '1', '1'],
        ...PEER_NAMES.map((name) => {
          const p = r.peers[name];
          if (!p.available) return [name, `unavailable: ${p.reason ?? ''}`, '', '', '', '', '', '', '', '', '', '', '', ''];
          return [name, n(p.p50ColdMs), n(p.p95ColdMs), n(p.p50ColdRecallMs), n(p.p95ColdRecallMs), bytes(p.bytesReadPerRequest), bytes(p.bytesReadPerRequestP50), bytes(p.bytesReadPerRecall), bytes(p.diskBytes), n(p.deviceWriteAmp), n(p.coldP50RatioToAkashic), n(p.coldP95RatioToAkashic), n(p.coldRecallP50RatioToAkashic), n(p.bytesReadRatioToAkashic)];
        }),
      ],
    ),
  );
  if (r.sweeps !== undefined) {
    out.push('');
    out.push('### Sweep: GC threshold θ (akashic)');
    out.push('');
    out.push(sweepTable(r.sweeps.theta, 'θ'));
    out.push('');
    out.push('### Sweep: τ_assoc (akashic)');
    out.push('');
    out.push(sweepTable(r.sweeps.tauAssoc, 'τ_assoc'));
    out.push('');
    out.push('### Sweep: block capacity');
    out.push('');
    out.push(sweepTable(r.sweeps.blockCapacity, 'capacity'));
  }
  return out.join('\n') + '\n';
}
