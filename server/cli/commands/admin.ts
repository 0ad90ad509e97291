/**
 * `lightmud admin grant|revoke|list`: the admin role, stored on accounts in the database file. Only
 * accounts already registered can be granted the role; nobody becomes an admin by registering a name.
 * Safe while the server runs on the same file (SQLite WAL): the server reads the role afresh for
 * every admin command, so a revoke takes effect at once.
 */
import { existsSync } from 'node:fs';
import type { Command } from '../command.js';
import { parseOptions, UsageError } from '../command.js';
import { DEFAULT_OPTIONS } from '../../net/limits.js';
import { openDb } from '../../store/db.js';
import { AccountStore } from '../../store/accounts.js';

const USAGE = [
  'usage: lightmud admin grant NAME [--db FILE]',
  '       lightmud admin revoke NAME [--db FILE]',
  '       lightmud admin list [--db FILE]',
  '',
  'Give or take the admin role of an account already registered in the database, or list the admins.',
  'Admins may @reload, @save, @kick, @teleport, @drive, and build (@dig, @describe, @link, @unlink, @create).',
  'Works while the server runs on the same file; a revoke takes effect at the admin\'s next command.',
  '',
  `  --db FILE   SQLite file (default ${DEFAULT_OPTIONS.db}); it must exist`,
].join('\n');

export const adminCommand: Command = {
  name: 'admin',
  summary: 'grant, revoke or list the admin role of registered accounts (in the database file)',
  usage: USAGE,
  async run(args) {
    const { opts, rest } = parseOptions(args, { db: 'string' });
    const [op, name, ...extra] = rest;
    if (!op || !['grant', 'revoke', 'list'].includes(op)) throw new UsageError(op ? `unknown admin operation "${op}"` : 'which operation: grant, revoke or list?');
    if (op === 'list' ? name !== undefined : !name || extra.length) throw new UsageError(op === 'list' ? 'list takes no name' : `${op} takes one account name`);
    const file = opts.db ?? DEFAULT_OPTIONS.db;
    if (file !== ':memory:' && !existsSync(file)) {
      console.error(`lightmud admin: there is no database at ${file} (run lightmud serve once, and register the account, first)`);
      return 1;
    }
    const db = openDb(file, { sync: 'full' });
    try {
      const accounts = new AccountStore(db);
      if (op === 'list') {
        const admins = accounts.withRole('admin');
        if (!admins.length) console.log('No account has the admin role.');
        for (const a of admins) console.log(`${a.name}\t(registered ${new Date(a.createdAt).toISOString()}, last login ${a.lastLoginAt ? new Date(a.lastLoginAt).toISOString() : 'never'})`);
        return 0;
      }
      const account = accounts.get(name!);
      if (!account) {
        console.error(`lightmud admin: there is no account "${name}" in ${file}; it must register first`);
        return 1;
      }
      const role = op === 'grant' ? 'admin' : 'player';
      if (account.role === role) {
        console.log(`${account.name} ${op === 'grant' ? 'is already an admin' : 'is not an admin'}; nothing changed.`);
        return 0;
      }
      accounts.setRole(account.name, role);
      console.log(op === 'grant' ? `${account.name} is now an admin.` : `${account.name} is no longer an admin.`);
      return 0;
    } finally {
      db.close();
    }
  },
};
