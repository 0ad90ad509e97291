/**
 * The persistence tests run once per store kind (issue 15): SQLite (a temp file) and PostgreSQL (a real
 * server on 127.0.0.1, started here in a temp directory with initdb and pg_ctl, on a free port, its unix
 * socket in that directory; as `nobody` when the tests run as root, since PostgreSQL refuses root). When
 * PostgreSQL is not installed (or LIGHTMUD_TEST_POSTGRES=off), its cases are skipped with the reason (printed once per file).
 *
 *   for (const kind of storeKinds()) describe.skipIf(kind.skip)(`... (${kind.name})`, () => {
 *     beforeAll(() => kind.setup()); afterAll(() => kind.teardown());
 *     ... kind.hostConfig(dir, 'name') ... kind.serveArgs(dir, 'name') ...
 *   });
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import type { HostConfig } from '../../server/host/types.js';
import type { GameHost } from '../../server/host/game-host.js';
import type { PgStore } from '../../server/store/pg-store.js';
import type { SqliteStore } from '../../server/store/store.js';

export interface LoggedRow {
  seq: number;
  actor: string;
  kind: string;
  input: string;
  text: string;
}

export interface StoreKind {
  name: 'sqlite' | 'postgres';
  /** Why this kind's cases are skipped (PostgreSQL not installed); undefined when they run. */
  skip: string | false;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** The store part of a HostConfig for a world called `name` (a file in `dir`, or a world id in PostgreSQL). */
  hostConfig(dir: string, name: string): Pick<HostConfig, 'db' | 'pg'>;
  /** The same for startServer's options. */
  serverOptions(dir: string, name: string): { db: string; pg?: { url: string; world: string } };
  /** `lightmud serve` arguments for it. */
  serveArgs(dir: string, name: string): string[];
  /** The logged commands with these sequence numbers (or the last `limit`), oldest first, read from the database itself. */
  logged(dir: string, name: string, q: { seqs?: number[]; limit?: number }): Promise<LoggedRow[]>;
  /** Make the game host's own connection refuse writes (as a read-only database does), or allow them again. */
  readOnly(host: GameHost, on: boolean): Promise<void>;
}

// ---- PostgreSQL, started by the tests -----------------------------------------------------------

/** PostgreSQL's programs: `pg_config --bindir`, else the newest /usr/lib/postgresql/N/bin. */
export function postgresBinDir(): string | null {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  } catch {
    // no pg_config
  }
  try {
    const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      const dir = `/usr/lib/postgresql/${v}/bin`;
      if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
    }
  } catch {
    // not installed
  }
  return null;
}

/** A TCP port free on 127.0.0.1 just now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningPostgres {
  url: string;
  port: number;
  dir: string;
  /** A fresh client (the caller ends it). */
  client(): Promise<pg.Client>;
  stop(): Promise<void>;
}

/** initdb + pg_ctl start in a temp directory, on 127.0.0.1 and a free port; trust auth for the user lightmud. */
export async function startPostgres(bin = postgresBinDir(), opts: { maxConnections?: number } = {}): Promise<RunningPostgres> {
  if (!bin) throw new Error('PostgreSQL is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-pg-'));
  const root = process.getuid?.() === 0;
  let uid: number | null = null;
  if (root) {
    uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (cmd: string, args: string[]) => {
    const r = root ? spawnSync('runuser', ['-u', 'nobody', '--', join(bin, cmd), ...args], { encoding: 'utf8' }) : spawnSync(join(bin, cmd), args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout || r.error?.message}`);
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'lightmud', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c shared_buffers=16MB -c max_connections=${opts.maxConnections ?? 40}`, 'start']);
      break;
    } catch (err) {
      if (attempt >= 2) throw err;
    }
  }
  const url = `postgres://lightmud@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    dir,
    async client() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    },
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

let skipNoted = false;

/** The store kinds to run persistence tests against: SQLite always, PostgreSQL when installed. */
export function storeKinds(): StoreKind[] {
  const off = process.env.LIGHTMUD_TEST_POSTGRES === 'off';
  const bin = off ? null : postgresBinDir();
  const pgSkip = off ? 'LIGHTMUD_TEST_POSTGRES=off: the PostgreSQL store tests are skipped'
    : bin ? false : 'PostgreSQL is not installed (no pg_config, no /usr/lib/postgresql/N/bin): the PostgreSQL store tests are skipped';
  if (pgSkip && !skipNoted) {
    skipNoted = true;
    console.warn(pgSkip);
  }
  let server: RunningPostgres | null = null;
  const need = () => {
    if (!server) throw new Error('setup() first');
    return server;
  };
  const sqliteFile = (dir: string, name: string) => join(dir, `${name}.db`);
  const sqlite: StoreKind = {
    name: 'sqlite',
    skip: false,
    async setup() {},
    async teardown() {},
    hostConfig: (dir, name) => ({ db: sqliteFile(dir, name) }),
    serverOptions: (dir, name) => ({ db: sqliteFile(dir, name) }),
    serveArgs: (dir, name) => ['--db', sqliteFile(dir, name)],
    async logged(dir, name, q) {
      const db = new Database(sqliteFile(dir, name), { readonly: true });
      try {
        const rows = q.seqs
          ? db.prepare(`SELECT seq, actor, kind, input, text FROM events WHERE seq IN (${q.seqs.map(Number).join(',')}) ORDER BY seq`).all()
          : db.prepare('SELECT * FROM (SELECT seq, actor, kind, input, text FROM events ORDER BY seq DESC LIMIT ?) ORDER BY seq').all(q.limit ?? 10);
        return rows as LoggedRow[];
      } finally {
        db.close();
      }
    },
    async readOnly(host, on) {
      (host.store as SqliteStore).db.pragma(`query_only = ${on ? 'ON' : 'OFF'}`);
    },
  };
  const postgres: StoreKind = {
    name: 'postgres',
    skip: pgSkip,
    async setup() {
      server ??= await startPostgres(bin);
    },
    async teardown() {
      await server?.stop();
      server = null;
    },
    // The accounts (and the rest that stays on SQLite) in a file; the world in PostgreSQL.
    hostConfig: (dir, name) => ({ db: sqliteFile(dir, `${name}-local`), pg: { url: need().url, world: name } }),
    serverOptions: (dir, name) => ({ db: sqliteFile(dir, `${name}-local`), pg: { url: need().url, world: name } }),
    serveArgs: (dir, name) => ['--db', need().url, '--world-id', name, '--local-db', sqliteFile(dir, `${name}-local`)],
    async logged(_dir, name, q) {
      const c = await need().client();
      try {
        const r = q.seqs
          ? await c.query('SELECT seq::int AS seq, actor, kind, input, text FROM lightmud_events WHERE world = $1 AND seq = ANY($2::bigint[]) ORDER BY seq', [name, q.seqs])
          : await c.query('SELECT * FROM (SELECT seq::int AS seq, actor, kind, input, text FROM lightmud_events WHERE world = $1 ORDER BY seq DESC LIMIT $2) t ORDER BY seq', [name, q.limit ?? 10]);
        return r.rows as LoggedRow[];
      } finally {
        await c.end();
      }
    },
    async readOnly(host, on) {
      await (host.store as PgStore).client.query(`SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
    },
  };
  return [sqlite, postgres];
}
