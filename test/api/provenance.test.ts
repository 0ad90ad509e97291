import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { Host, type Driver, type DriverKind } from '../../server/host/host.js';
import { openDb } from '../../server/store/db.js';
import { WorldStore } from '../../server/store/world-store.js';
import { AgentKeyStore } from '../../server/api/agent-keys.js';
import { tempDir, writeLittleWorld } from '../server/helpers.js';

const fake = (kind: DriverKind, causeName?: string): Driver => ({ kind, ...(causeName ? { causeName } : {}), wantsState: false, perceive() {}, detached() {} });

describe('provenance: who caused each logged command', () => {
  it('records the driver of the character: model, script, agent:NAME; an explicit cause; null when nobody drives it', async () => {
    const tmp = tempDir();
    try {
      const db = join(tmp.dir, 'p.db');
      const host = await Host.start({ db, world: writeLittleWorld(tmp.dir) }, { agents: false });
      host.attach('orc', fake('model'));
      host.attach('ghost', fake('script'));
      host.attach('gardener', fake('agent', 'scout'));
      await host.submit('orc', 'say one');
      await host.submit('ghost', 'say two');
      await host.submit('gardener', 'say three');
      await host.submit('kitty', 'say four');
      await host.submit('carter', 'say five', null, { cause: 'script:replay' });
      await host.close();
      const store = new WorldStore(openDb(db));
      const rows = store.recent(5).reverse().map((r) => [r.input, r.cause]);
      store.db.close();
      expect(rows).toEqual([['say one', 'model'], ['say two', 'script'], ['say three', 'agent:scout'], ['say four', null], ['say five', 'script:replay']]);
    } finally {
      tmp.cleanup();
    }
  });

  it('adds the cause column to a database written before it (schema 1)', () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'old.db');
      const old = new Database(file);
      old.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, time INTEGER NOT NULL, actor TEXT NOT NULL, kind TEXT NOT NULL, input TEXT NOT NULL, ok INTEGER NOT NULL, text TEXT NOT NULL, events TEXT NOT NULL, account TEXT);
        INSERT INTO events (time, actor, kind, input, ok, text, events, account) VALUES (1, 'kitty', 'command', 'look', 1, 'x', '[]', NULL);
        PRAGMA user_version = 1;`);
      old.close();
      const db = openDb(file);
      expect(db.pragma('user_version', { simple: true })).toBe(3);
      expect(new WorldStore(db).recent(1)[0]).toMatchObject({ input: 'look', cause: null });
      db.close();
    } finally {
      tmp.cleanup();
    }
  });
});

describe('lightmud agent-key', () => {
  const bin = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;
  it('creates, lists and revokes keys; the database keeps only a hash', () => {
    const tmp = tempDir();
    try {
      const db = join(tmp.dir, 'k.db');
      const run = (...args: string[]) => spawnSync(process.execPath, [bin, 'agent-key', ...args, '--db', db], { encoding: 'utf8', timeout: 60_000 });
      const made = run('create', 'scout');
      expect(made.status, made.stderr).toBe(0);
      const key = made.stdout.trim();
      expect(key).toMatch(/^lmk_[\w-]{32}$/);
      expect(run('create', 'scout').status).toBe(1);
      expect(run('create', '9 bad name').status).toBe(1);
      expect(run('list').stdout).toMatch(/scout\s+player\s+lmk_[\w-]{4}\.\.\.\s+\S+\s+-\s+live/);
      const raw = new Database(db, { readonly: true });
      const stored = JSON.stringify(raw.prepare('SELECT * FROM agent_keys').all());
      raw.close();
      expect(stored).not.toContain(key);
      const check = openDb(db);
      expect(new AgentKeyStore(check).verify(key)).toEqual({ name: 'scout', role: 'player' });
      check.close();
      expect(run('revoke', 'scout').status).toBe(0);
      expect(run('revoke', 'scout').status).toBe(1);
      const listed = JSON.parse(run('list', '--json').stdout.trim()) as { name: string; revokedAt: number | null };
      expect(listed).toMatchObject({ name: 'scout', revokedAt: expect.any(Number) });
      const after = openDb(db);
      expect(new AgentKeyStore(after).verify(key)).toBeNull();
      after.close();
      expect(run('frobnicate').status).toBe(2);
      const gm = run('create', 'narrator', '--gm');
      expect(gm.status, gm.stderr).toBe(0);
      const gmCheck = openDb(db);
      expect(new AgentKeyStore(gmCheck).verify(gm.stdout.trim())).toEqual({ name: 'narrator', role: 'gm' });
      gmCheck.close();
    } finally {
      tmp.cleanup();
    }
  });
});
