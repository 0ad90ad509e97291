import type { Command } from '../command.js';
import { intOption, parseOptions, UsageError } from '../command.js';
import { openBus, parseBusUrl } from '../../bus/open-bus.js';
import { isPostgresUrl } from '../../store/store.js';
import { Shard, type ShardLog } from '../../cluster/shard.js';
import { WORLD_ID } from '../../cluster/subjects.js';

/** One JSON line a record on stdout, as the server's json log format (pino's fields: level as a number, time, msg). */
function jsonLog(quiet: boolean): ShardLog {
  const line = (level: number) => (obj: object, msg: string) => {
    if (quiet && level < 40) return;
    process.stdout.write(`${JSON.stringify({ level, time: Date.now(), pid: process.pid, ...obj, msg })}\n`);
  };
  return { info: line(30), warn: line(40), error: line(50) };
}

export const shardCommand: Command = {
  name: 'shard',
  summary: 'run one world of a cluster: its game, over NATS, its state in PostgreSQL (portals: serve --remote)',
  usage: [
    'usage: lightmud shard --bus nats://HOST:PORT --db postgres://... --world-id NAME [--world FILE] [--fresh] [options]',
    '',
    'Runs the game of one world and answers its portals (lightmud serve --remote) over a NATS server. The',
    'world (event log, snapshots) is in PostgreSQL; every command is acknowledged after its COMMIT. One shard',
    'writes a world: it holds the world\'s advisory lock; a second shard for the same world stands by (or,',
    'with --refuse-if-held, exits 1) and takes over when the first one\'s database connection ends.',
    'A shard that loses its database connection (and so the lock) stops writing and exits 1.',
    'SIGINT / SIGTERM: the world is saved, exit 0. See "Running a cluster" in README.md.',
    '',
    '  --bus nats://HOST:PORT     the NATS server the portals use (the shard does not start without it)',
    '  --db postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    '                             the PostgreSQL database that keeps the world',
    '  --world-id NAME            the world: its name in the database and on the bus (letters, digits, _ or -)',
    '  --world FILE               world file or directory for a new world (default: the bundled world); the',
    '                             database remembers its world',
    '  --fresh                    start the world anew from its file, discarding its saved state',
    '  --snapshot-every N         commands between world snapshots (default 5000)',
    '  --refuse-if-held           exit 1 at once when another shard holds the world, instead of standing by',
    '  --quiet                    log warnings and errors only',
  ].join('\n'),
  async run(args) {
    const { opts: o, rest } = parseOptions(args, {
      bus: 'string', db: 'string', 'world-id': 'string', world: 'string', fresh: 'boolean', 'snapshot-every': 'string', 'refuse-if-held': 'boolean', quiet: 'boolean',
    });
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    if (o.bus === undefined) throw new UsageError('--bus nats://HOST:PORT is required: the portals reach the shard through it');
    if (o.db === undefined || !isPostgresUrl(o.db)) throw new UsageError(`--db postgres://... is required: a shard keeps its world in PostgreSQL${o.db === undefined ? '' : ` (not "${o.db}")`}`);
    if (o['world-id'] === undefined) throw new UsageError('--world-id NAME is required: which world this shard runs');
    const world = o['world-id'];
    if (!WORLD_ID.test(world)) throw new UsageError(`--world-id is 1 to 64 letters, digits, _ or -, not "${world}"`);
    let busUrl: string;
    try {
      busUrl = parseBusUrl(o.bus);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const snapshotEvery = intOption(o['snapshot-every'], 'snapshot-every', 5000);
    if (snapshotEvery < 1) throw new UsageError(`--snapshot-every must be 1 or more, got ${snapshotEvery}`);
    const log = jsonLog(o.quiet === true);
    const bus = await openBus(busUrl, log, `lightmud shard ${world}`);
    let shard: Shard;
    try {
      log.info({ world, bus: bus.name }, 'opening the world (standing by while another shard holds it)');
      shard = await Shard.start({
        bus, world, log,
        // The game host keeps nothing of a PostgreSQL world in SQLite (config.db is not opened); '' would fail loudly if it were.
        config: { db: '', pg: { url: o.db, world, wait: o['refuse-if-held'] !== true }, ...(o.world ? { world: o.world } : {}), fresh: o.fresh === true, snapshotEvery },
      });
    } catch (err) {
      await bus.close();
      throw err;
    }
    log.info({ world, title: shard.info.title, restored: shard.info.restored, replayed: shard.info.replayed, seq: shard.info.seq, shard: shard.instance }, 'serving the world on the bus');
    return new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) process.exit(1);
        stopping = true;
        log.info({ signal }, 'signal received; saving the world and stopping');
        shard.close().then(() => bus.close()).then(() => resolve(0), (err: unknown) => {
          log.error({ err: (err as Error).message }, 'shutdown failed');
          resolve(1);
        });
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    }).then((code) => {
      setTimeout(() => process.exit(code), 1000).unref();
      return code;
    });
  },
};
