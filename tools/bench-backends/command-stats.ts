import { Redis } from 'ioredis';

/** What one Redis node has served: commands (our own INFO, CLUSTER, COMMAND and CONFIG calls left out), their server µs, and used memory. */
export interface NodeFigures {
  readonly calls: number;
  readonly usec: number;
  readonly memory: number;
}

/** The figures of the node at host:port, from INFO commandstats and INFO memory. */
export async function nodeFigures(port: number, host = '127.0.0.1'): Promise<NodeFigures> {
  const r = new Redis({ host, port });
  try {
    const text = String(await r.info('commandstats')) + String(await r.info('memory'));
    let calls = 0;
    let usec = 0;
    for (const m of text.matchAll(/cmdstat_([a-z|]+):calls=(\d+),usec=(\d+)/g)) {
      if (m[1] === 'info' || m[1] === 'command' || m[1]!.startsWith('cluster') || m[1]!.startsWith('config')) continue;
      calls += Number(m[2]);
      usec += Number(m[3]);
    }
    return { calls, usec, memory: Number(/used_memory:(\d+)/.exec(text)?.[1] ?? 0) };
  } finally {
    r.disconnect();
  }
}
