/**
 * Issue 12, 8: session tokens are hashed at rest. A copy of the database (a backup, a leak) holds no
 * token that resumes anyone's session; the token itself still works, also after a restart, and tokens
 * kept in the clear by an older database are hashed when it is opened.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDir, WsClient } from '../server/helpers.js';
import { hashToken, openDb } from '../../server/store/db.js';

describe('session tokens at rest', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('stores only the hash; the token resumes after a restart; the hash does not', async () => {
    const db = join(tmp.dir, 'tokens.db');
    let server = await startTestServer({ db, linkdeadMs: 0 }, tmp.dir);
    const c = await WsClient.open(server.wsUrl);
    await c.nextOfType('hello');
    c.send({ type: 'login', guest: true, character: 'kitty' });
    const { token } = await c.nextOfType('welcome');
    await c.drop();
    await server.close();

    const raw = new Database(db, { readonly: true });
    const stored = (raw.prepare('SELECT token FROM tokens').all() as { token: string }[]).map((r) => r.token);
    raw.close();
    expect(stored).not.toContain(token);
    expect(stored).toContain(hashToken(token));

    server = await startTestServer({ db }, tmp.dir);
    try {
      const thief = await WsClient.open(server.wsUrl);
      await thief.nextOfType('hello');
      thief.send({ type: 'resume', token: hashToken(token) });
      expect(await thief.nextOfType('error')).toMatchObject({ code: 'bad_token' });
      thief.send({ type: 'resume', token });
      expect(await thief.nextOfType('welcome')).toMatchObject({ character: { id: 'kitty' }, resumed: true });
      await thief.close();
    } finally {
      await server.close();
    }
  });

  it('hashes the clear tokens of a schema-1 database when it is opened', () => {
    const file = join(tmp.dir, 'old.db');
    const old = openDb(file);
    old.pragma('user_version = 1');
    old.prepare('INSERT INTO tokens (token, account_id, character, created_at, expires_at) VALUES (?, NULL, ?, ?, ?)').run('clear-token-123', 'kitty', 0, Date.now() + 60_000);
    old.close();
    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    expect((db.prepare('SELECT token FROM tokens').all() as { token: string }[]).map((r) => r.token)).toEqual([hashToken('clear-token-123')]);
    db.close();
  });
});
