/**
 * `lightmud backup --db FILE --out FILE`: a consistent copy of the database while the server runs,
 * with SQLite's online backup API (better-sqlite3's `.backup()`), page by page, never blocking the
 * server's writes for long. A plain file copy of a WAL database in use can be torn or miss the WAL.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Command } from '../command.js';
import { parseOptions, UsageError } from '../command.js';
import { DEFAULT_OPTIONS } from '../../net/limits.js';

export const backupCommand: Command = {
  name: 'backup',
  summary: 'copy the database consistently while the server runs (SQLite online backup)',
  usage: [
    'usage: lightmud backup --out FILE [--db FILE]',
    '',
    'Writes a consistent copy of the database (world, event log, accounts, hashed tokens) to FILE with',
    'SQLite\'s online backup, safe while `lightmud serve` runs on it. Restore: stop the server, put the copy',
    'in place of the database (and remove its -wal and -shm files), start the server.',
    '',
    `  --db FILE    the database (default ${DEFAULT_OPTIONS.db})`,
    '  --out FILE   where to write the copy (must not exist)',
  ].join('\n'),
  async run(args) {
    const { opts, rest } = parseOptions(args, { db: 'string', out: 'string' });
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    if (!opts.out) throw new UsageError('--out FILE is needed');
    const file = opts.db ?? DEFAULT_OPTIONS.db;
    if (!existsSync(file)) {
      console.error(`lightmud backup: there is no database at ${file}`);
      return 1;
    }
    if (existsSync(opts.out)) {
      console.error(`lightmud backup: ${opts.out} exists; choose another name`);
      return 1;
    }
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      const t0 = performance.now();
      const r = await db.backup(opts.out);
      const check = new Database(opts.out, { readonly: true });
      const ok = check.pragma('integrity_check', { simple: true });
      check.close();
      console.log(`Backed up ${file} to ${opts.out}: ${r.totalPages} pages in ${Math.round(performance.now() - t0)} ms; integrity ${ok}.`);
      return ok === 'ok' ? 0 : 1;
    } finally {
      db.close();
    }
  },
};
