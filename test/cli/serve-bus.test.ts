/**
 * `lightmud serve --bus nats://...` as a user runs it: a bad address or an unreachable NATS server stops
 * the start with a clear message and a non-zero exit; with a real nats-server (skipped without one), two
 * servers of different worlds start on it, and a third with a world name already there does not.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LITTLE_WORLD } from '../fixtures/little-world.js';
import { freePort, natsSkip, startNats } from '../server/nats.js';

const BIN = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lightmud-serve-bus-'));
const world = join(dir, 'little-world.json');
writeFileSync(world, JSON.stringify(LITTLE_WORLD));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const args = (extra: string[]) => [BIN, 'serve', '--world', world, '--db', join(dir, `t${n++}.db`), '--http-port', '0', '--telnet-port', 'off', '--host', '127.0.0.1', '--log-format', 'json', ...extra];
const run = (extra: string[]) => spawnSync(process.execPath, args(extra), { encoding: 'utf8', timeout: 60_000 });

describe('lightmud serve --bus', () => {
  it('refuses an address that is not nats://HOST:PORT', () => {
    const r = run(['--bus', 'http://127.0.0.1:4222']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--bus must be a nats:// address (nats://HOST:PORT), not "http://127.0.0.1:4222"');
    const world = run(['--world-id', 'east']);
    expect(world.status).toBe(2);
    expect(world.stderr).toContain('--world-id goes with --db postgres://... or --bus nats://...');
    const shout = run(['--shout-every', '5']);
    expect(shout.status).toBe(2);
    expect(shout.stderr).toContain('--shout-every goes with --bus nats://...');
    const negative = run(['--bus', 'nats://127.0.0.1:1', '--world-id', 'east', '--shout-every', '-1']);
    expect(negative.status).toBe(2);
    expect(negative.stderr).toContain('--shout-every is 0 or more seconds, or off, got -1');
  });

  it('does not start when the NATS server cannot be reached', async () => {
    const port = await freePort();
    const r = run(['--bus', `nats://127.0.0.1:${port}`, '--world-id', 'east']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`lightmud serve: cannot reach the NATS server at nats://127.0.0.1:${port}`);
  }, 60_000);

  describe.skipIf(natsSkip())('with a real nats-server', () => {
    it('starts two worlds on one bus, and refuses a third of a name already there', async () => {
      const nats = await startNats();
      const children: ChildProcess[] = [];
      try {
        /** Start a server; resolves with its output once it is up. */
        const up = (id: string) => new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, args(['--bus', nats.url, '--world-id', id]), { stdio: ['ignore', 'pipe', 'pipe'] });
          children.push(child);
          let out = '';
          child.stdout!.on('data', (d: Buffer) => {
            out += String(d);
            if (out.includes('lightmud is up')) resolve(out);
          });
          child.stderr!.on('data', (d: Buffer) => (out += String(d)));
          child.on('exit', (code) => reject(new Error(`exited ${code} before it was up:\n${out}`)));
        });
        expect(await up('east')).toContain('on the bus: cross-world who and tell');
        expect(await up('west')).toContain('"world":"west"');
        const clash = run(['--bus', nats.url, '--world-id', 'east']);
        expect(clash.status).toBe(1);
        expect(clash.stderr).toContain(`a world called "east" is already on the bus (${nats.url}): Little world; give this one another --world-id`);
        for (const c of children) {
          c.removeAllListeners('exit');
          const exited = new Promise<number | null>((resolve) => c.once('exit', (code) => resolve(code)));
          c.kill('SIGTERM');
          expect(await exited).toBe(0);
        }
      } finally {
        for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
        await nats.stop();
      }
    }, 120_000);
  });
});
