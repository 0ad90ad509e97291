/**
 * The world's store behind its interface (server/store/store.ts, issue 15): the same cases on SQLite and
 * PostgreSQL, and PostgreSQL's single-writer fence (a session advisory lock per world).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../server/store/db.js';
import { SqliteStore, type GameStore } from '../../server/store/store.js';
import { LOCK_CLASS, PgStore, StoreLostError, WorldLockedError } from '../../server/store/pg-store.js';
import { Host } from '../../server/host/host.js';
import type { NewEvent } from '../../server/store/world-store.js';
import type { WorldState } from '../../server/engine/index.js';
import { GameHost } from '../../server/host/game-host.js';
import { tempDir, writeLittleWorld } from './helpers.js';
import { storeKinds, type StoreKind } from './stores.js';

const event = (i: number, extra: Partial<NewEvent> = {}): NewEvent => ({ time: 1000 + i, actor: 'kitty', kind: 'command', input: `say ${i}`, ok: true, text: `You say, "${i}"`, events: [], account: null, ...extra });
const state = (n: number) => ({ title: `state ${n}`, nodes: [], placement: [] }) as unknown as WorldState;

async function openStore(kind: StoreKind, dir: string, name: string): Promise<GameStore> {
  const c = kind.hostConfig(dir, name);
  return c.pg ? PgStore.open({ url: c.pg.url, world: c.pg.world }) : new SqliteStore(openDb(c.db));
}

for (const kind of storeKinds()) {
  describe.skipIf(kind.skip)(`the world store (${kind.name})`, () => {
    const tmp = tempDir();
    beforeAll(() => kind.setup());
    afterAll(async () => {
      await kind.teardown();
      tmp.cleanup();
    });

    it('numbers events in order, keeps the newest snapshots and notes, and reads back the same after a reopen', async () => {
      let store = await openStore(kind, tmp.dir, 'basic');
      expect(store.lastSeq()).toBe(0);
      expect(store.latestSnapshot()).toBeNull();
      expect(await store.write({ snapshot: { state: state(0), reason: 'seed' }, meta: { 'world.source': '/w.json', 'world.title': 'W' } })).toEqual([]);
      expect(await store.write({ events: [event(1), event(2, { account: 'dora', cause: 'human', ok: false })] })).toEqual([1, 2]);
      expect(await store.write({ events: [event(3)], snapshot: { state: state(3), reason: 'periodic' } })).toEqual([3]);
      expect(await store.write({ events: [event(4, { kind: 'admin', input: '@narrate "quoted" {x} \\ ok' })] })).toEqual([4]);
      for (let i = 0; i < 4; i++) await store.write({ snapshot: { state: state(10 + i), reason: 'admin' } });
      await store.write({ events: [event(5), event(6)] });
      const check = (s: GameStore) => {
        expect(s.lastSeq()).toBe(6);
        expect(s.latestSnapshot()).toMatchObject({ seq: 4, reason: 'admin', state: { title: 'state 13' } });
        expect([...s.commandsAfter(4)].map((c) => [c.seq, c.input])).toEqual([[5, 'say 5'], [6, 'say 6']]);
        expect(s.getMeta('world.title')).toBe('W');
        expect(s.getMeta('nothing')).toBeUndefined();
      };
      check(store);
      await store.close();
      store = await openStore(kind, tmp.dir, 'basic');
      check(store);
      expect([...store.commandsAfter(0)].length).toBeLessThanOrEqual(6);
      await store.close();
      const rows = await kind.logged(tmp.dir, 'basic', { seqs: [2, 4] });
      expect(rows.map((r) => r.input)).toEqual(['say 2', '@narrate "quoted" {x} \\ ok']);
    });

    it('writes nothing of a group that fails', async () => {
      const store = await openStore(kind, tmp.dir, 'atomic');
      await store.write({ events: [event(1)] });
      // A snapshot that cannot be serialised fails the whole write: the event before it in the group is not kept.
      const bad = { toJSON() { throw new Error('no'); } } as unknown as WorldState;
      await expect((async () => store.write({ events: [event(2)], snapshot: { state: bad, reason: 'x' } }))()).rejects.toThrow();
      expect(store.lastSeq()).toBe(1);
      expect(await store.write({ events: [event(2)] })).toEqual([2]);
      await store.close();
      expect((await kind.logged(tmp.dir, 'atomic', { limit: 10 })).map((r) => r.input)).toEqual(['say 1', 'say 2']);
    });
  });
}

const pgKind = storeKinds().find((k) => k.name === 'postgres')!;

describe.skipIf(pgKind.skip)('one writer per world in PostgreSQL (an advisory lock)', () => {
  const tmp = tempDir();
  beforeAll(() => pgKind.setup());
  afterAll(async () => {
    await pgKind.teardown();
    tmp.cleanup();
  });

  it('refuses a second writer with who holds the world, lets it take over when the first connection dies, and fences the first', async () => {
    const { url, world } = pgKind.hostConfig(tmp.dir, 'fenced').pg!;
    const first = await PgStore.open({ url, world });
    expect(await first.write({ events: [event(1)] })).toEqual([1]);

    const refused = await PgStore.open({ url, world }).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(WorldLockedError);
    expect((refused as Error).message).toMatch(/world "fenced" in PostgreSQL is being written by another lightmud \(PostgreSQL backend \d+, "lightmud pid \d+ world fenced"/);
    // Another world of the same database is not held.
    const other = await PgStore.open({ url, world: 'fenced-other' });
    await other.close();

    let heldBy = '';
    const standby = PgStore.open({ url, world, wait: true, pollMs: 20, onWait: (h) => (heldBy = h) });
    await new Promise((r) => setTimeout(r, 200));
    expect(heldBy).toContain(`lightmud pid ${process.pid} world fenced`);
    // The first writer's connection dies (as its server's would under kill -9, or a network cut noticed by PostgreSQL).
    const killer = await pgClient(url);
    const { rows } = await killer.query<{ pid: number }>("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = hashtext($1)::oid", [world]);
    const diedAt = performance.now();
    await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    const second = await standby;
    const tookMs = performance.now() - diedAt;
    expect(tookMs).toBeLessThan(2000);
    expect(second.lastSeq()).toBe(1);

    // The old writer writes no more: not through its dead connection, and it never opens another.
    await expect(first.write({ events: [event(2)] })).rejects.toBeInstanceOf(StoreLostError);
    expect(first.open).toBe(false);
    expect(await second.write({ events: [event(2, { input: 'from the second' })] })).toEqual([2]);
    const log = await killer.query('SELECT seq::int, input FROM lightmud_events WHERE world = $1 ORDER BY seq', [world]);
    expect(log.rows).toEqual([{ seq: 1, input: 'say 1' }, { seq: 2, input: 'from the second' }]);
    await killer.end();
    await second.close();
    await first.close();
  });

  it('a server that loses its world to a standby during @reload stops (onFatal) instead of hanging', async () => {
    const config = { ...pgKind.hostConfig(tmp.dir, 'reloaded'), world: writeLittleWorld(tmp.dir) };
    const host = await Host.start(config, { agents: false });
    expect((await host.submit('kitty', 'get shovel')).ok).toBe(true);
    const fatal: Error[] = [];
    host.onFatal((e) => fatal.push(e));
    // A standby queued in PostgreSQL for the world's lock gets it the moment the old worker lets go.
    const standby = await pgClient(config.pg!.url);
    const queued = standby.query('SELECT pg_advisory_lock($1, hashtext($2))', [LOCK_CLASS, 'reloaded']);
    await new Promise((r) => setTimeout(r, 100));
    await expect(host.reloadCode()).rejects.toThrow(/could not be opened again after the reload: the world "reloaded" in PostgreSQL is being written by another lightmud/);
    await queued;
    expect(fatal).toHaveLength(1);
    await expect(host.submit('kitty', 'drop shovel')).rejects.toThrow();
    await host.close().catch(() => {});
    await standby.end();
  });

  it('a game host whose connection is lost refuses to go on (its worker restarts from the database)', async () => {
    const config = { ...pgKind.hostConfig(tmp.dir, 'lost'), world: writeLittleWorld(tmp.dir) };
    const host = await GameHost.openAsync(config);
    expect((await host.submitAsync('kitty', 'get shovel')).ok).toBe(true);
    const killer = await pgClient(config.pg!.url);
    await killer.query("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = hashtext($1)::oid", ['lost']);
    await killer.end();
    await new Promise((r) => setTimeout(r, 100));
    await expect(host.submitAsync('kitty', 'drop shovel')).rejects.toBeInstanceOf(StoreLostError);
    await host.closeAsync();
    const again = await GameHost.openAsync(config);
    expect(again.state('kitty')!.character.carrying.map((o) => o.id)).toEqual(['shovel']);
    await again.closeAsync();
  });
});

async function pgClient(url: string) {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}


describe('--db with a PostgreSQL address', () => {
  it('is never taken for a SQLite file name by the tools that work on the file', () => {
    expect(() => openDb('postgres://someone@127.0.0.1:5432/lightmud')).toThrow(/names a PostgreSQL database: this works on the SQLite file/);
  });

  it('says where it could not connect, without the password', async () => {
    await expect(PgStore.open({ url: 'postgres://someone:secret@127.0.0.1:1/lightmud' })).rejects.toThrow('cannot connect to PostgreSQL at postgres://someone:***@127.0.0.1:1/lightmud');
  });
});
