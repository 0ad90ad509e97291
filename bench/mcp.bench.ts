/**
 * Outside agents over MCP: `lightmud serve` in a child process on 127.0.0.1, N agents (the official
 * SDK's client, Streamable HTTP, one MCP session each) that join as guests and then call tools at R
 * calls a second each (random phases) for a fixed time. Latency is a whole tools/call round trip
 * (HTTP request, the game command committed with synchronous=FULL, the observation back).
 *
 * Sizes: 100 agents at 2 calls/s for 20 s; --quick: 20 agents for 5 s. Override with MCP_AGENTS,
 * MCP_RATE (calls per second per agent), MCP_SECONDS, MCP_SYNC (full|normal).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { benchWorld, cpuSeconds, serve } from './load.bench.js';
import { percentile, type BenchContext } from './report.js';

const CALLS: [string, Record<string, string>][] = [
  ['look', {}], ['get', { object: 'stool' }], ['drop', { object: 'stool' }], ['say', { text: 'good day' }], ['emote', { emote: 'wave' }],
  ['inventory', {}], ['examine', { target: 'barrel' }], ['go', { exit: 'east' }], ['go', { exit: 'west' }], ['get', { object: 'mug', from: 'barrel' }],
  ['put', { object: 'mug', prep: 'in', container: 'barrel' }], ['valid_actions', {}],
];

export default async function mcp(ctx: BenchContext): Promise<void> {
  const env = process.env;
  const agents = Number(env.MCP_AGENTS ?? (ctx.quick ? 20 : 100));
  const rate = Number(env.MCP_RATE ?? 2);
  const seconds = Number(env.MCP_SECONDS ?? (ctx.quick ? 5 : 20));
  const sync = env.MCP_SYNC ?? 'full';
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-mcp-bench-'));
  const world = join(dir, 'world.json');
  writeFileSync(world, JSON.stringify(benchWorld(agents + 12)));
  const child = await serve(join(dir, 'bench.db'), world, sync);
  const url = new URL(`http://127.0.0.1:${child.httpPort}/mcp`);
  const clients: { client: Client; transport: StreamableHTTPClientTransport }[] = [];
  try {
    const t0 = performance.now();
    for (let i = 0; i < agents; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, agents - i) }, async () => {
        const transport = new StreamableHTTPClientTransport(url);
        const client = new Client({ name: 'mcp-bench', version: '1' });
        await client.connect(transport);
        const joined = await client.callTool({ name: 'join', arguments: {} });
        if (joined.isError) throw new Error(`join failed: ${JSON.stringify(joined.content)}`);
        clients.push({ client, transport });
      }));
    }
    const connectMs = performance.now() - t0;
    const latencies: number[] = [];
    let refused = 0;
    let failed = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const cpu0 = cpuSeconds(child.proc.pid!);
    const own0 = process.cpuUsage();
    const start = performance.now();
    const end = start + seconds * 1000;
    const interval = 1000 / rate;
    await Promise.all(clients.map(async ({ client }, i) => {
      let next = start + Math.random() * interval;
      let n = i;
      while (next < end) {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const [name, args] = CALLS[n++ % CALLS.length]!;
        const c0 = performance.now();
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          const r = await client.callTool({ name, arguments: args });
          latencies.push(performance.now() - c0);
          if (r.isError) refused++;
        } catch {
          failed++;
        }
        inFlight--;
        // A fixed schedule: a slow reply does not push the next call later (open loop, up to one call in flight).
        next += interval;
        while (next < performance.now() - interval) next += interval;
      }
    }));
    const elapsed = (performance.now() - start) / 1000;
    const cpu = cpuSeconds(child.proc.pid!) - cpu0;
    const own = process.cpuUsage(own0);
    ctx.report({
      bench: 'mcp.calls',
      agents, rate_per_agent: rate, seconds: Math.round(elapsed * 10) / 10, sync,
      calls: latencies.length, calls_per_s: latencies.length / elapsed, refused_by_game: refused, transport_failures: failed,
      p50_ms: percentile(latencies, 50), p95_ms: percentile(latencies, 95), p99_ms: percentile(latencies, 99), max_ms: percentile(latencies, 100),
      max_in_flight: maxInFlight, server_cpu_s_per_s: cpu / elapsed, clients_cpu_s_per_s: (own.user + own.system) / 1e6 / elapsed, load_avg_1m: loadavg()[0]!, connect_and_join_ms: connectMs,
    });
  } finally {
    await Promise.all(clients.map(async ({ client, transport }) => {
      await transport.terminateSession().catch(() => {});
      await client.close().catch(() => {});
    }));
    child.proc.kill('SIGTERM');
    await new Promise((r) => child.proc.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}
