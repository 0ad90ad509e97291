/**
 * The layout is the architecture: dependencies point inward, and there are no import cycles.
 * Reads every TypeScript file under server/ and models/ and follows its relative imports (type-only
 * imports included: a cycle of types is still two modules that cannot be understood apart). The wire
 * protocol's types (server/net/protocol.ts) are shared by everyone.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** Relative imports of each file, as repository paths. */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of [...files(join(ROOT, 'server')), ...files(join(ROOT, 'models'))]) {
    const src = readFileSync(f, 'utf8');
    const deps: string[] = [];
    for (const m of src.matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2])!.replace(/\.js$/, '.ts');
      deps.push(relative(ROOT, resolve(dirname(f), spec)));
    }
    g.set(relative(ROOT, f), deps);
  }
  return g;
}

const g = graph();

describe('imports', () => {
  it('reads the tree', () => {
    expect(g.size).toBeGreaterThan(100);
    expect(g.get('server/agents/manager.ts')).toContain('server/agents/policy.ts');
  });

  it('have no cycles', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') {
        cycles.push([...path.slice(path.indexOf(f)), f].join(' -> '));
        return;
      }
      state.set(f, 'open');
      for (const d of g.get(f) ?? []) visit(d, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of g.keys()) visit(f, []);
    expect(cycles).toEqual([]);
  });

  it.each([
    ['server/engine', ['server/net', 'server/agents', 'server/store', 'server/host', 'server/api', 'server/crowd', 'server/bus', 'server/cluster', 'models']],
    // The bus carries messages between processes and knows nothing of what they mean.
    ['server/bus', ['server/engine', 'server/net', 'server/agents', 'server/store', 'server/host', 'server/api', 'server/crowd', 'server/world-io', 'server/cluster', 'models']],
    ['server/host', ['server/bus', 'server/cluster']],
    ['server/store', ['server/bus', 'server/cluster']],
    // A cluster's shard and portal link: the game host's transport over the bus; it knows nothing of sockets, agents or stores.
    ['server/cluster', ['server/net', 'server/agents', 'server/api', 'server/crowd', 'server/store', 'server/engine', 'models']],
    ['server/agents', ['server/net', 'server/host/host.ts', 'server/api', 'server/crowd', 'models/training']],
    ['models/runtime', ['server/net', 'server/host', 'server/agents', 'server/store', 'models/training']],
    ['server/store', ['server/net', 'server/agents', 'server/host', 'server/api', 'server/crowd', 'models']],
    ['server/crowd', ['models/training']],
    ['server/api', ['models/training']],
  ])('%s imports nothing from %j', (from, forbidden) => {
    const bad = [...g].filter(([f]) => f.startsWith(`${from}/`)).flatMap(([f, deps]) => deps.filter((d) => d !== 'server/net/protocol.ts' && forbidden.some((x) => d === x || d.startsWith(`${x}/`))).map((d) => `${f} -> ${d}`));
    expect(bad).toEqual([]);
  });
});
