import type { Command } from '../command.js';
import { intOption, parseOptions, UsageError } from '../command.js';
import { openBus, parseBusUrl } from '../../bus/open-bus.js';
import { isPostgresUrl } from '../../store/store.js';
import { listPgWorlds } from '../../store/pg-worlds.js';
import type { ShardLog } from '../../cluster/shard.js';
import { ShardSet } from '../../cluster/shard-set.js';
import { controlSubject, MAX_HOLD_MS, WORLD_ID } from '../../cluster/subjects.js';

/** One JSON line a record on stdout, as the server's json log format (pino's fields: level as a number, time, msg). */
function jsonLog(quiet: boolean): ShardLog {
  const line = (level: number) => (obj: object, msg: string) => {
    if (quiet && level < 40) return;
    process.stdout.write(`${JSON.stringify({ level, time: Date.now(), pid: process.pid, ...obj, msg })}\n`);
  };
  return { info: line(30), warn: line(40), error: line(50) };
}

function parseBusUrlOrUsage(url: string): string {
  try {
    return parseBusUrl(url);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** `--move`: ask the world's writer to let it go, then watch PostgreSQL's locks for who takes it. */
async function moveWorld(world: string, busUrl: string, db: string, holdMs: number): Promise<number> {
  const before = (await listPgWorlds(db)).find((w) => w.world === world);
  if (!before?.held) {
    console.error(`lightmud shard: nobody writes the world "${world}" now${before ? '' : ' (the database does not know it)'}: nothing to move`);
    return 1;
  }
  const quiet = { info() {}, warn() {} };
  const bus = await openBus(busUrl, quiet, `lightmud shard --move ${world}`);
  const t0 = performance.now();
  let answer;
  try {
    answer = await bus.request(controlSubject(world), { op: 'release', holdMs }, 30_000);
  } catch (err) {
    console.error(`lightmud shard: the world's shard did not let "${world}" go: ${(err as Error).message}`);
    return 1;
  } finally {
    await bus.close();
  }
  const released = Math.round(performance.now() - t0);
  const deadline = Date.now() + holdMs + 5000;
  for (;;) {
    const now = (await listPgWorlds(db)).find((w) => w.world === world);
    if (now?.held && now.holder !== before.holder) {
      console.log(`moved "${world}" from "${before.holder}" to "${now.holder}": let go after ${released} ms (saved, closed), served again ${Math.round(performance.now() - t0)} ms after the request`);
      return 0;
    }
    if (Date.now() > deadline || (now?.held && now.holder === before.holder)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  console.error(`lightmud shard: "${world}" was let go (${JSON.stringify(answer)}) but no other shard took it over; its shard takes it back after ${holdMs} ms. Start a shard with --world-id ${world} to stand by for it.`);
  return 1;
}

export const shardCommand: Command = {
  name: 'shard',
  summary: 'run worlds of a cluster: their games, over NATS, their state in PostgreSQL (portals: serve --remote)',
  usage: [
    'usage: lightmud shard --bus nats://HOST:PORT --db postgres://... --world-id NAME[,NAME...] [--world FILE] [--fresh] [options]',
    '       lightmud shard --bus nats://HOST:PORT --db postgres://... --on-demand [--world FILE] [--reclaim-after S] [options]',
    '       lightmud shard --list --db postgres://...',
    '       lightmud shard --move NAME --bus nats://HOST:PORT --db postgres://... [--hold MS]',
    '',
    'Runs the games of one or more worlds and answers their portals (lightmud serve --remote) over a NATS',
    'server. Each world (event log, snapshots) is in PostgreSQL; every command is acknowledged after its',
    'COMMIT. One shard writes a world: it holds the world\'s advisory lock; another shard started with the',
    'same world stands by for it (or, with --refuse-if-held, exits 1) and takes it over by itself when the',
    'first one\'s database connection ends (a shard serving more worlds tries less often, so a dead shard\'s',
    'worlds go mostly to the least loaded). Start every shard with every world to have each world fail over.',
    'A shard that loses a world\'s database connection (and so the lock) stops writing and exits 1.',
    'SIGINT / SIGTERM: the worlds are saved, exit 0. See "Running a cluster" in README.md.',
    '',
    '  --bus nats://HOST:PORT     the NATS server the portals use (the shard does not start without it)',
    '  --db postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    '                             the PostgreSQL database that keeps the world',
    '  --world-id NAME[,NAME...]  the worlds: their names in the database and on the bus (letters, digits, _',
    '                             or -), comma-separated',
    '  --world FILE               world file or directory for a world new to the database (default: the',
    '                             bundled world); the database remembers each world',
    '  --fresh                    start the worlds anew from the file, discarding their saved state',
    '  --snapshot-every N         commands between world snapshots (default 5000)',
    '  --refuse-if-held           exit 1 at once when another shard holds a world, instead of standing by',
    '  --on-demand                also open worlds on request (a portal started with --on-demand asks when no',
    '                             shard serves its world): a new world from --world FILE, a known one where it',
    '                             was left; one of the on-demand shards takes each request. --world-id optional',
    '  --reclaim-after S          with --on-demand: close a world opened on request when no portal has asked',
    '                             anything of it for S seconds and none watches a character in it (default 300)',
    '  --quiet                    log warnings and errors only',
    '  --list                     print the database\'s worlds, one a line: name, last event, who writes it now',
    '                             (the lock\'s holder, or "no writer"), and which shard took it last, then exit',
    '  --move NAME                move a world on purpose: its shard saves it and lets it go, a shard standing',
    '                             by for it takes it over (portals hold players\' commands meanwhile); prints',
    '                             where it went; exit 1 if no other shard took it (its shard takes it back)',
    '  --hold MS                  with --move: how long the old shard stays away from the world (default 5000)',
  ].join('\n'),
  async run(args) {
    const { opts: o, rest } = parseOptions(args, {
      bus: 'string', db: 'string', 'world-id': 'string', world: 'string', fresh: 'boolean', 'snapshot-every': 'string', 'refuse-if-held': 'boolean', quiet: 'boolean', list: 'boolean', move: 'string', hold: 'string', 'on-demand': 'boolean', 'reclaim-after': 'string',
    });
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    if (o.list) {
      if (o.db === undefined || !isPostgresUrl(o.db)) throw new UsageError('--list needs --db postgres://...');
      for (const w of await listPgWorlds(o.db)) {
        const owner = w.owner ? `taken last by ${w.owner} at ${new Date(w.since!).toISOString()}` : 'never taken by a shard';
        console.log(`${w.world}\tevents ${w.seq}\t${w.held ? `written by "${w.holder}"` : 'no writer'}\t${owner}`);
      }
      return 0;
    }
    if (o.move !== undefined) {
      if (o.db === undefined || !isPostgresUrl(o.db)) throw new UsageError('--move needs --db postgres://... (to see who writes the world)');
      if (o.bus === undefined) throw new UsageError('--move needs --bus nats://HOST:PORT (to ask the world\'s shard)');
      if (!WORLD_ID.test(o.move)) throw new UsageError(`--move takes a world's name (letters, digits, _ or -), not "${o.move}"`);
      const holdMs = intOption(o.hold, 'hold', 5000);
      if (holdMs < 0 || holdMs > MAX_HOLD_MS) throw new UsageError(`--hold is 0 to ${MAX_HOLD_MS} ms, got ${holdMs}`);
      return moveWorld(o.move, parseBusUrlOrUsage(o.bus), o.db, holdMs);
    }
    if (o.bus === undefined) throw new UsageError('--bus nats://HOST:PORT is required: the portals reach the shard through it');
    if (o.db === undefined || !isPostgresUrl(o.db)) throw new UsageError(`--db postgres://... is required: a shard keeps its world in PostgreSQL${o.db === undefined ? '' : ` (not "${o.db}")`}`);
    const onDemand = o['on-demand'] === true;
    if (o['world-id'] === undefined && !onDemand) throw new UsageError('--world-id NAME[,NAME...] is required (or --on-demand): which worlds this shard runs');
    if (o['reclaim-after'] !== undefined && !onDemand) throw new UsageError('--reclaim-after is for worlds opened on demand: add --on-demand');
    const reclaimS = intOption(o['reclaim-after'], 'reclaim-after', 300);
    if (reclaimS < 1) throw new UsageError(`--reclaim-after must be 1 or more seconds, got ${reclaimS}`);
    const worlds = o['world-id'] === undefined ? [] : o['world-id'].split(',').map((w) => w.trim());
    for (const world of worlds) if (!WORLD_ID.test(world)) throw new UsageError(`--world-id is 1 to 64 letters, digits, _ or -, not "${world}"`);
    if (new Set(worlds).size !== worlds.length) throw new UsageError(`--world-id names a world twice: ${worlds.join(',')}`);
    const busUrl = parseBusUrlOrUsage(o.bus);
    const snapshotEvery = intOption(o['snapshot-every'], 'snapshot-every', 5000);
    if (snapshotEvery < 1) throw new UsageError(`--snapshot-every must be 1 or more, got ${snapshotEvery}`);
    const log = jsonLog(o.quiet === true);
    const bus = await openBus(busUrl, log, `lightmud shard ${worlds.join(',') || 'on demand'}`);
    const set = new ShardSet({
      bus, worlds, log,
      ...(onDemand ? { onDemand: { reclaimIdleMs: reclaimS * 1000 } } : {}),
      // The game host keeps nothing of a PostgreSQL world in SQLite (config.db is not opened); '' would fail loudly if it were.
      config: (world) => ({ db: '', pg: { url: o.db!, world, wait: o['refuse-if-held'] !== true }, ...(o.world ? { world: o.world } : {}), fresh: o.fresh === true, snapshotEvery }),
    });
    log.info({ worlds, bus: bus.name, onDemand }, onDemand ? 'opening the worlds (standing by for those another shard holds); worlds opened on request too' : 'opening the worlds (standing by for those another shard holds)');
    const started = set.start((world, shard) => {
      log.info({ world, title: shard.info.title, restored: shard.info.restored, replayed: shard.info.replayed, seq: shard.info.seq, shard: shard.instance, serving: set.serving }, 'serving the world on the bus');
    });
    return new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (why: object, msg: string, code: number) => {
        if (stopping) process.exit(1);
        stopping = true;
        (code ? log.error : log.info)(why, msg);
        set.close().then(() => bus.close()).then(() => resolve(code), (err: unknown) => {
          log.error({ err: (err as Error).message }, 'shutdown failed');
          resolve(1);
        });
      };
      started.then(() => log.info({ serving: set.serving, onDemand }, onDemand ? 'every world given is served; open to requests for more' : 'every world given is served'), () => {});
      // A world that cannot be opened (held, with --refuse-if-held; the database unreachable) stops the shard.
      started.catch((err: unknown) => {
        process.stderr.write(`lightmud shard: ${(err as Error).message}\n`);
        stop({ err: (err as Error).message }, 'a world could not be opened; stopping', 1);
      });
      process.once('SIGINT', () => stop({ signal: 'SIGINT' }, 'signal received; saving the worlds and stopping', 0));
      process.once('SIGTERM', () => stop({ signal: 'SIGTERM' }, 'signal received; saving the worlds and stopping', 0));
    }).then((code) => {
      setTimeout(() => process.exit(code), 1000).unref();
      return code;
    });
  },
};
