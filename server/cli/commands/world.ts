/**
 * `lightmud world export`: the live world as the server's database holds it (the newest snapshot and
 * the commands logged after it, replayed as a restart would; builders' changes included), written as
 * a lightmud world file that `lightmud serve --world` loads, or as LIGHT graph JSON. Reads the
 * database only (safe while the server runs on it).
 */
import { existsSync, writeFileSync } from 'node:fs';
import type { Command } from '../command.js';
import { parseOptions, UsageError } from '../command.js';
import { DEFAULT_OPTIONS } from '../../net/limits.js';
import { getMeta, openDb } from '../../store/db.js';
import { WorldStore } from '../../store/world-store.js';
import { GameHost } from '../../host/game-host.js';
import { loadWorld } from '../../world-io/load-world.js';
import { exportLightGraph } from '../../world-io/light-graph.js';
import { toWorldFile } from '../../world-io/world-export.js';

const USAGE = [
  'usage: lightmud world export [--db FILE] [--format lightmud|light] [--out PATH]',
  '',
  'Writes the world as the server\'s database holds it now (its newest snapshot and the commands logged',
  'after it, replayed as a restart would), with everything admins built (@dig, @describe, @link, @unlink,',
  '@create) and everything players moved, ate or broke. Reads the database only: safe while the server runs.',
  '',
  `  --db FILE        the server's database (default ${DEFAULT_OPTIONS.db})`,
  '  --format F       lightmud (default): a lightmud world file, which `lightmud serve --world PATH` loads',
  '                   (with a new --db, or --fresh); light: LIGHT graph JSON, which lightmud and LIGHT read',
  '  --out PATH       where to write it (default: standard output); an existing file is replaced',
  '',
  'Not in the lightmud format, so left out (and said on standard error): whom characters follow or block,',
  'the seeded generator\'s state, the counter for new ids. LIGHT graph JSON keys exits by the room they',
  'lead to: two exits from one room to the same room keep only the last.',
].join('\n');

export const worldCommand: Command = {
  name: 'world',
  summary: 'export the live world from the database: a lightmud world file or LIGHT graph JSON',
  usage: USAGE,
  async run(args) {
    const { opts, rest } = parseOptions(args, { db: 'string', format: 'string', out: 'string' });
    const [op, ...extra] = rest;
    if (!op) {
      console.log('lightmud world: one sub-command:\n  export   write the live world (lightmud world file or LIGHT graph JSON)\n\nlightmud world export --help for its options.');
      return 0;
    }
    if (op !== 'export') throw new UsageError(`unknown world operation "${op}" (there is: export)`);
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
    const format = opts.format ?? 'lightmud';
    if (format !== 'lightmud' && format !== 'light') throw new UsageError(`--format is lightmud or light, not "${format}"`);
    const file = opts.db ?? DEFAULT_OPTIONS.db;
    if (!existsSync(file)) {
      console.error(`lightmud world export: there is no database at ${file}`);
      return 1;
    }
    const db = openDb(file, { readonly: true });
    let text: string;
    try {
      db.pragma('busy_timeout = 5000');
      const store = new WorldStore(db);
      if (!store.latestSnapshot()) {
        console.error(`lightmud world export: ${file} holds no world yet (start lightmud serve on it once)`);
        return 1;
      }
      const { world, replayed, seq } = GameHost.replay(store);
      const state = world.toJSON();
      if (format === 'light') {
        text = JSON.stringify(exportLightGraph(state), null, 2);
      } else {
        // The start room, from the world file the database was made from, when it can still be read.
        let start: string | null = null;
        const source = getMeta(db, 'world.source');
        try {
          if (source) start = loadWorld(source).start;
        } catch {
          // moved or changed: no start room
        }
        const out = toWorldFile(state, { start, file: opts.out ?? '(standard output)' });
        for (const n of out.notes) console.error(`note: ${n}`);
        if (out.problems.length) {
          console.error(`lightmud world export: the world as ${file} holds it is not a valid lightmud world file (it may come from a LIGHT map; try --format light):`);
          for (const p of out.problems.slice(0, 50)) console.error(`  ${p.entity}: ${p.field}: ${p.message}`);
          return 1;
        }
        text = JSON.stringify(out.file, null, 2);
      }
      console.error(`Exported the world of ${file} at event ${seq} (${replayed} commands replayed after its newest snapshot): ${world.rooms().length} rooms, ${world.characters().length} characters, ${world.objects().length} objects, as ${format === 'light' ? 'LIGHT graph JSON' : 'a lightmud world file'}${opts.out ? ` to ${opts.out}` : ''}.`);
    } finally {
      db.close();
    }
    if (opts.out) writeFileSync(opts.out, `${text}\n`);
    else process.stdout.write(`${text}\n`);
    return 0;
  },
};
