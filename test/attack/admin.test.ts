/**
 * Issue 12, 1: nobody claims admin. `--admin NAME` used to give the role to whoever registered NAME
 * first; now roles are granted only to accounts already in the database (lightmud admin grant).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, tempDir, WsClient } from '../server/helpers.js';
import { adminCommand } from '../../server/cli/commands/admin.js';
import type { ErrorFrame } from '../../server/net/protocol.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    const code = await adminCommand.run(args);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

async function loginAs(url: string, name: string, password: string, register = false) {
  const c = await WsClient.open(url);
  await c.nextOfType('hello');
  c.send({ type: register ? 'register' : 'login', name, password, character: register ? 'kitty' : undefined });
  const welcome = await c.nextOfType('welcome');
  await c.nextOfType('state');
  return { c, welcome };
}

async function forbidden(c: WsClient, cmd: string): Promise<boolean> {
  c.send({ type: 'command', text: cmd, id: cmd });
  const f = await c.next((x) => (x.type === 'error' || x.type === 'observation') && (x as ErrorFrame).id === cmd);
  return f.type === 'error' && f.code === 'forbidden';
}

describe('admin role', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());

  it('registering a name given to --admin gives no admin role', async () => {
    const server = await startTestServer({ admins: ['mallory'] }, tmp.dir);
    try {
      const { c, welcome } = await loginAs(server.wsUrl, 'mallory', 'first come first served', true);
      expect(welcome.account).toEqual({ name: 'mallory', role: 'player' });
      expect(await forbidden(c, '@save')).toBe(true);
      await c.close();
    } finally {
      await server.stop();
    }
  });

  it('grants, lists and revokes the role on the database file; the server sees a revoke at once', async () => {
    const db = join(tmp.dir, 'roles.db');
    let server = await startTestServer({ db }, tmp.dir);
    const { c } = await loginAs(server.wsUrl, 'alice', 'alice password', true);
    await c.close();
    await server.close();

    expect(await cli(['grant', 'nobody', '--db', db])).toMatchObject({ code: 1, err: expect.stringContaining('no account "nobody"') });
    expect(await cli(['grant', 'alice', '--db', join(tmp.dir, 'missing.db')])).toMatchObject({ code: 1, err: expect.stringContaining('no database') });
    expect((await cli(['list', '--db', db])).out).toContain('No account has the admin role');
    expect(await cli(['grant', 'alice', '--db', db])).toMatchObject({ code: 0, out: 'alice is now an admin.' });
    expect((await cli(['list', '--db', db])).out).toMatch(/^alice\t/);

    server = await startTestServer({ db }, tmp.dir);
    try {
      const { c: a, welcome } = await loginAs(server.wsUrl, 'alice', 'alice password');
      expect(welcome.account).toEqual({ name: 'alice', role: 'admin' });
      expect((await a.command('@save')).result.ok).toBe(true);
      // Revoked while the server runs and alice plays: her next admin command is refused.
      expect(await cli(['revoke', 'alice', '--db', db])).toMatchObject({ code: 0, out: 'alice is no longer an admin.' });
      expect(await forbidden(a, '@save')).toBe(true);
      await a.close();
    } finally {
      await server.stop();
    }
    expect(await cli(['frobnicate', '--db', db]).catch((e: Error) => e.message)).toContain('unknown admin operation');
  });
});
