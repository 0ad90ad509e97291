/**
 * A real nats-server for the bus tests (issue 15), as test/server/stores.ts starts PostgreSQL: on
 * 127.0.0.1 and a free port, its files in a temp directory, as `nobody` when the tests run as root.
 * When no nats-server is installed (or LIGHTMUD_TEST_NATS=off) the NATS cases skip, with the reason
 * printed once.
 *
 *   const nats = natsServerOrSkip();
 *   describe.skipIf(nats.skip)('...', () => { let s: RunningNats; beforeAll(async () => { s = await startNats(); }); ... });
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './stores.js';

export { freePort };

/** The nats-server program: on $PATH, else where Debian puts it. */
export function natsServerBinary(): string | null {
  try {
    const found = execFileSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (found) return found;
  } catch {
    // not on $PATH
  }
  for (const p of ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']) if (existsSync(p)) return p;
  return null;
}

let skipNoted = false;

/** Why the NATS cases skip (false when they run). */
export function natsSkip(): string | false {
  const skip = process.env.LIGHTMUD_TEST_NATS === 'off' ? 'LIGHTMUD_TEST_NATS=off: the NATS bus tests are skipped'
    : natsServerBinary() ? false : 'nats-server is not installed (apt-get install nats-server): the NATS bus tests are skipped';
  if (skip && !skipNoted) {
    skipNoted = true;
    console.warn(skip);
  }
  return skip;
}


function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface RunningNats {
  url: string;
  port: number;
  dir: string;
  /** kill -9: the server is gone at once, as in a crash. */
  kill(): Promise<void>;
  /** Start it again on the same port (after kill()). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** nats-server -a 127.0.0.1 -p PORT in a temp directory; resolves once it accepts connections. */
export async function startNats(bin = natsServerBinary()): Promise<RunningNats> {
  if (!bin) throw new Error('nats-server is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-nats-'));
  const root = process.getuid?.() === 0;
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const port = await freePort();
  let child: ChildProcess | null = null;
  let output = '';
  const launch = async () => {
    const args = ['-a', '127.0.0.1', '-p', String(port), '-l', join(dir, 'nats.log'), '-P', join(dir, 'nats.pid')];
    child = root ? spawn('runuser', ['-u', 'nobody', '--', bin, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }) : spawn(bin, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d) => (output += String(d)));
    child.stderr?.on('data', (d) => (output += String(d)));
    const started = Date.now();
    while (!(await accepts(port))) {
      if (child.exitCode !== null) throw new Error(`nats-server exited (${child.exitCode}): ${output}`);
      if (Date.now() - started > 10_000) throw new Error(`nats-server did not listen on ${port} within 10 s: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const halt = async (signal: NodeJS.Signals) => {
    const c = child as ChildProcess | null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    // Under runuser the server is runuser's child: signal it by its pid file's pid too.
    try {
      const pid = Number(readFileSync(join(dir, 'nats.pid'), 'utf8').trim());
      if (pid) process.kill(pid, signal);
    } catch {
      // no pid file yet
    }
    c.kill(signal);
    await exited;
    while (await accepts(port)) await new Promise((r) => setTimeout(r, 20));
  };
  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    dir,
    kill: () => halt('SIGKILL'),
    restart: launch,
    async stop() {
      try {
        await halt('SIGTERM');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
