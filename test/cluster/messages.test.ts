/** What a shard and its portals say to each other: bodies checked on arrival, and the shard's memory of answers. */
import { describe, expect, it } from 'vitest';
import { gameSubject, outSubject, parseShardNews, parseShardReply, parseShardRequest } from '../../server/cluster/subjects.js';
import { RecentResults } from '../../server/cluster/recent-results.js';

describe('shard messages', () => {
  it('name a subject per world', () => {
    expect(gameSubject('meadow')).toBe('lightmud.world.meadow.game');
    expect(outSubject('meadow')).toBe('lightmud.world.meadow.out');
  });

  it('a request needs a portal, an id from 1 and a known op, and says what is missing', () => {
    const ok = { portal: 'p1', id: 3, req: { op: 'submit', actor: 'kitty', text: 'look', account: null } };
    expect(parseShardRequest(ok)).toEqual(ok);
    expect(parseShardRequest({ ...ok, resend: { shard: 'abc' } }).resend).toEqual({ shard: 'abc' });
    expect(() => parseShardRequest({ ...ok, portal: '' })).toThrow('"portal"');
    expect(() => parseShardRequest({ ...ok, id: 0 })).toThrow('"id"');
    expect(() => parseShardRequest({ ...ok, id: 1.5 })).toThrow('"id"');
    expect(() => parseShardRequest({ ...ok, req: { op: 'explode' } })).toThrow('a known op');
    expect(() => parseShardRequest({ ...ok, req: { op: 'submit', text: 'look' } })).toThrow('"actor"');
    expect(() => parseShardRequest({ ...ok, req: { op: 'submit', actor: 'kitty' } })).toThrow('"text"');
    expect(() => parseShardRequest({ ...ok, req: { op: 'admin', actor: 'kitty' } })).toThrow('"admin"');
    expect(() => parseShardRequest({ ...ok, resend: { shard: 7 } })).toThrow('"resend"');
  });

  it('a reply is ok with a result or not ok with an error, from a named shard', () => {
    expect(parseShardReply({ shard: 's', ok: true, result: 4 })).toEqual({ shard: 's', ok: true, result: 4 });
    expect(parseShardReply({ shard: 's', ok: false, error: 'no', unavailable: true })).toEqual({ shard: 's', ok: false, error: 'no', fatal: false, unavailable: true });
    expect(() => parseShardReply({ ok: true, result: 4 })).toThrow('"shard"');
    expect(() => parseShardReply({ shard: 's', ok: false })).toThrow('"ok"');
  });

  it('news this code does not read is null (the portal logs and drops it)', () => {
    expect(parseShardNews({ kind: 'started', shard: 's' })).toEqual({ kind: 'started', shard: 's' });
    expect(parseShardNews({ kind: 'perceived', shard: 's', from: 'p', deliveries: [], states: {}, died: [] })).not.toBeNull();
    expect(parseShardNews({ kind: 'perceived', shard: 's', from: 'p', deliveries: {}, states: {}, died: [] })).toBeNull();
    expect(parseShardNews({ kind: 'log', shard: 's', level: 'debug', msg: 'x' })).toBeNull();
    expect(parseShardNews({ kind: 'gossip', shard: 's' })).toBeNull();
    expect(parseShardNews({ kind: 'started' })).toBeNull();
  });
});

describe('RecentResults', () => {
  it('runs a (portal, id) once, and answers a repeat, even one that comes while the first runs, with its result', async () => {
    const recent = new RecentResults<number>();
    let runs = 0;
    let finish!: (n: number) => void;
    const first = recent.once('p', 1, () => new Promise<number>((r) => { runs++; finish = r; }));
    const again = recent.once('p', 1, async () => ++runs);
    expect(again.repeated).toBe(true);
    finish(42);
    expect(await first.result).toBe(42);
    expect(await again.result).toBe(42);
    expect(runs).toBe(1);
    // Another portal's id 1 is another command.
    expect(await recent.once('q', 1, async () => ++runs).result).toBe(2);
    expect(recent.has('p', 1) && recent.has('q', 1) && !recent.has('p', 2)).toBe(true);
  });

  it('forgets the oldest beyond its capacity', async () => {
    const recent = new RecentResults<number>(2);
    for (const id of [1, 2, 3]) await recent.once('p', id, async () => id).result;
    expect(recent.size).toBe(2);
    expect(recent.has('p', 1)).toBe(false);
    expect(recent.once('p', 1, async () => 10).repeated).toBe(false);
    expect(() => new RecentResults(0)).toThrow('at least 1');
  });
});
