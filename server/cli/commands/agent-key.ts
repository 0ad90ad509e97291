import type { Command } from '../command.js';
import { parseOptions, UsageError } from '../command.js';
import { DEFAULT_OPTIONS } from '../../net/limits.js';
import { openDb } from '../../store/db.js';
import { AgentKeyError, AgentKeyStore } from '../../api/agent-keys.js';

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'));

export const agentKeyCommand: Command = {
  name: 'agent-key',
  summary: 'create, list or revoke the keys outside agents use (MCP at /mcp, the step API)',
  usage: [
    'usage: lightmud agent-key create NAME [--gm] | list | revoke NAME [--db FILE]',
    '',
    'An agent key lets a program play as the named agent: it sends `Authorization: Bearer KEY` to /mcp',
    'or /api/agent/*, and every command it causes is logged with the agent\'s name. The key is printed',
    'once, by create; the database keeps only its SHA-256. Works while the server runs (same database).',
    '',
    `  --db FILE   SQLite file (default ${DEFAULT_OPTIONS.db})`,
    '  --gm        create: a game master\'s key, which also opens gm_overview, gm_narrate, gm_create, gm_move',
    '  --json      list: one JSON object per key',
  ].join('\n'),
  async run(args) {
    const { opts, rest } = parseOptions(args, { db: 'string', json: 'boolean', gm: 'boolean' });
    const [verb, name, extra] = rest;
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    if (verb !== 'create' && verb !== 'list' && verb !== 'revoke') throw new UsageError('agent-key needs create NAME, list or revoke NAME');
    if (verb !== 'list' && !name) throw new UsageError(`agent-key ${verb} needs a NAME`);
    if (opts.gm && verb !== 'create') throw new UsageError('--gm is for create');
    const db = openDb(opts.db ?? DEFAULT_OPTIONS.db, { sync: 'normal' });
    try {
      const keys = new AgentKeyStore(db);
      if (verb === 'create') {
        const { key } = keys.create(name!, opts.gm ? 'gm' : 'player');
        console.log(key);
        console.error(`Created the ${opts.gm ? 'game master\'s ' : ''}agent key "${name}". It is shown only now: keep it (send it as "Authorization: Bearer ${key.slice(0, 8)}...").`);
        return 0;
      }
      if (verb === 'revoke') {
        if (!keys.revoke(name!)) {
          console.error(`No live agent key named "${name}".`);
          return 1;
        }
        console.log(`Revoked the agent key "${name}".`);
        return 0;
      }
      const list = keys.list();
      if (opts.json) for (const k of list) console.log(JSON.stringify(k));
      else if (!list.length) console.log('No agent keys. Make one: lightmud agent-key create NAME');
      else {
        console.log(`${'name'.padEnd(24)} ${'role'.padEnd(7)} ${'key'.padEnd(12)} ${'created'.padEnd(20)} ${'last used'.padEnd(20)} state`);
        for (const k of list) console.log(`${k.name.padEnd(24)} ${k.role.padEnd(7)} ${`${k.prefix}...`.padEnd(12)} ${when(k.createdAt).padEnd(20)} ${when(k.lastUsedAt).padEnd(20)} ${k.revokedAt ? `revoked ${when(k.revokedAt)}` : 'live'}`);
      }
      return 0;
    } catch (err) {
      if (err instanceof AgentKeyError) {
        console.error(err.message);
        return 1;
      }
      throw err;
    } finally {
      db.close();
    }
  },
};
