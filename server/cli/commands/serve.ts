import type { Command } from '../command.js';
import { intOption, parseOptions, UsageError } from '../command.js';
import { DEFAULT_OPTIONS, type ServerOptions } from '../../net/limits.js';
import { startServer } from '../../net/server.js';
import { chooseLogFormat, prettyStream, wantsColour } from '../../net/log-format.js';
import { relative } from 'node:path';
import { DEFAULT_WORLD } from '../../world-io/load-world.js';
import { DEFAULT_PG_WORLD, isPostgresUrl } from '../../store/store.js';
import { openBus, parseBusUrl } from '../../bus/open-bus.js';
import type { Bus, BusLog } from '../../bus/bus.js';
import { WORLD_ID } from '../../cluster/subjects.js';

const seconds = (v: string | undefined, name: string, fallbackMs: number) => (v === undefined ? fallbackMs : intOption(v, name, 0) * 1000);

/**
 * The limits added against abuse (issue 12): flag, option, unit, help. Each is an integer >= 0; 's' flags
 * are given in seconds and kept in milliseconds. 0 turns a per-address limit off.
 */
const ABUSE_LIMITS: [flag: string, key: keyof ServerOptions, unit: 'n' | 's', help: string][] = [
  ['frame-rate', 'framesPerSecond', 'n', 'websocket messages of any kind per second per connection'],
  ['frame-burst', 'frameBurst', 'n', 'websocket messages allowed at once above that rate'],
  ['frame-rate-per-ip', 'framesPerSecondPerIp', 'n', 'websocket messages per second for all connections of one address (0: none)'],
  ['frame-burst-per-ip', 'frameBurstPerIp', 'n', 'the burst for one address'],
  ['connect-rate-per-ip', 'connectsPerSecondPerIp', 'n', 'new connections per second from one address (0: none)'],
  ['connect-burst-per-ip', 'connectBurstPerIp', 'n', 'the burst for one address'],
  ['http-rate-per-ip', 'httpRequestsPerIp', 'n', 'plain HTTP requests per second from one address (0: none)'],
  ['http-burst-per-ip', 'httpBurstPerIp', 'n', 'the burst for one address'],
  ['max-pending', 'maxPendingRequests', 'n', 'requests of one connection waiting for the game'],
  ['telnet-byte-rate', 'telnetBytesPerSecond', 'n', 'bytes per second a telnet connection may send (0: none)'],
  ['telnet-byte-burst', 'telnetByteBurst', 'n', 'bytes at once above that; twice this beyond the rate disconnects'],
  ['max-subnegotiation', 'maxSubnegotiationBytes', 'n', 'largest telnet subnegotiation kept, in bytes'],
  ['login-failures', 'loginFailuresPerAccount', 'n', 'failed logins in a row on one account before each attempt must wait (0: off)'],
  ['login-failures-per-ip', 'loginFailuresPerIp', 'n', 'failed logins from one address before each attempt must wait (0: off)'],
  ['login-backoff', 'loginBackoffMs', 's', 'the first wait, doubled at each further failure'],
  ['login-backoff-max', 'loginBackoffMaxMs', 's', 'the longest wait'],
  ['registrations-per-ip', 'registrationsPerIpPerHour', 'n', 'accounts one address may register an hour (0: no limit)'],
  ['max-characters-per-ip', 'maxCharactersPerIp', 'n', 'characters one address may hold, link-dead ones included (0: none)'],
  ['max-db-bytes', 'maxDbBytes', 'n', 'a quota on the database file; beyond it the game serves reads and refuses actions, as on a full disk (0: none)'],
];

const abuseUsage = () => ABUSE_LIMITS.map(([flag, key, unit, help]) => {
  const v = DEFAULT_OPTIONS[key] as number;
  return `  ${`--${flag} ${unit === 's' ? 'S' : 'N'}`.padEnd(21)} ${help} (default ${unit === 's' ? v / 1000 : v})`;
});

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the multiplayer server: HTTP + websocket (3000) and telnet (4000)',
  usage: [
    'usage: lightmud serve [--world FILE] [--db FILE|postgres://...] [--bus nats://HOST:PORT --world-id NAME [--remote]] [--http-port N] [--telnet-port N] [--host H] [options]',
    '',
    'Serves a world to telnet clients, browsers (http://localhost:3000/) and websocket programs (/ws).',
    'State, accounts and the event log live in one SQLite file (or the world in PostgreSQL, --db postgres://...);',
    'on start the server restores the last state.',
    'SIGINT / SIGTERM: players are told, the world is saved, exit 0.',
    '',
    `  --world FILE        world file or directory, or a LIGHT map, for a new database (default: the bundled world,`,
    `                      ${relative(process.cwd(), DEFAULT_WORLD) || DEFAULT_WORLD}); a database remembers its world`,
    `  --fresh             start the world anew from its file, discarding the saved world state (accounts are kept)`,
    `  --db FILE           SQLite file (default ${DEFAULT_OPTIONS.db})`,
    '  --db postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    '                      keep the world (event log, snapshots) in PostgreSQL instead; accounts, tokens, agent keys',
    '                      and the rest stay in the SQLite file of --local-db. One server writes a world: while another',
    '                      holds it (an advisory lock), this one stands by and takes over when that one\'s connection ends',
    `  --world-id NAME     which world of the PostgreSQL database, and this world's name on the bus (default ${DEFAULT_PG_WORLD})`,
    '  --bus nats://HOST:PORT',
    '                      share a NATS server with other lightmud servers, each serving its own world: who lists the',
    '                      players of every world, tell reaches a player in another world. Nothing durable crosses it;',
    '                      while it is down each world plays on alone. The server does not start if it cannot reach it',
    '  --shout-every S     with --bus: a player\'s shout, heard next door by the engine, carries on to every player of',
    '                      every world on the bus at most once every S seconds a player (default 10; 0: every shout;',
    '                      off: shouts stay in their world)',
    '  --bus-timeout MS    how long who and tell wait for another world (default 500); with --remote, how long a',
    '                      request waits for the shard before it is sent again, once (default 3000)',
    '  --remote            a portal of a cluster: the world\'s game runs in its shard (lightmud shard --world-id NAME),',
    '                      reached over --bus; this server keeps the connections, and the accounts in --db FILE.',
    '                      No --world, --fresh, --db postgres://, --sync or --snapshot-every (the shard\'s). who',
    '                      lists the players on every portal of this world and of the other worlds on the bus; tell',
    '                      reaches them. See "Running a cluster" in README.md',
    '  --models            with --remote: this portal drives the world\'s model and scripted characters (give it to',
    '                      one portal of a world; a second one with --models does not start while the first runs)',
    '  --on-demand         with --remote: when no shard serves the world, ask the shards started with --on-demand to',
    '                      open it (a new world from their world file; one they closed when idle, where it was left)',
    `  --local-db FILE     with --db postgres://...: the SQLite file for what stays on SQLite (default ${DEFAULT_OPTIONS.db})`,
    `  --http-port N       HTTP and websocket port (default $PORT or ${DEFAULT_OPTIONS.httpPort}; 0 picks a free one)`,
    `  --telnet-port N     telnet port (default $TELNET_PORT or ${DEFAULT_OPTIONS.telnetPort}; 0 picks a free one; "off" for none)`,
    `  --host H            address to listen on (default $HOST or ${DEFAULT_OPTIONS.host}; 127.0.0.1 for this machine only)`,
    '  --admin NAMES       deprecated: comma-separated names of accounts ALREADY in the database that get the admin',
    '                      role at start-up; other names are ignored with a warning (registering one later gives',
    '                      nothing). Use lightmud admin grant NAME instead.',
    `  --sync MODE         full (default: each acknowledged action is fsynced) or normal (faster; survives a crash of`,
    '                      the server but not of the machine). SQLite only: on PostgreSQL an action is acknowledged',
    '                      after its COMMIT with synchronous_commit = on',
    `  --snapshot-every N  commands between world snapshots (default ${DEFAULT_OPTIONS.snapshotEvery})`,
    '  --trust-proxy ADDRS comma-separated addresses of reverse proxies in front of the HTTP port: websockets through',
    '                      them are counted and limited by the client address in X-Forwarded-For (default: none)',
    '',
    'limits:',
    `  --max-connections N   connections in total (default ${DEFAULT_OPTIONS.maxConnections}; 0: no limit)`,
    `  --max-per-ip N        connections from one address (default ${DEFAULT_OPTIONS.maxConnectionsPerIp}; 0: no limit)`,
    `  --rate N              commands per second per connection (default ${DEFAULT_OPTIONS.commandsPerSecond})`,
    `  --burst N             commands allowed at once above the rate (default ${DEFAULT_OPTIONS.commandBurst})`,
    `  --max-frame N         largest websocket message in bytes (default ${DEFAULT_OPTIONS.maxFrameBytes})`,
    `  --max-line N          longest telnet line in bytes (default ${DEFAULT_OPTIONS.maxLineBytes})`,
    `  --login-timeout S     seconds to log in (default ${DEFAULT_OPTIONS.loginTimeoutMs / 1000})`,
    `  --idle-timeout S      seconds without input before disconnecting (default ${DEFAULT_OPTIONS.idleTimeoutMs / 1000}; 0: never)`,
    `  --linkdead S          seconds a dropped player's character stays reserved for resume (default ${DEFAULT_OPTIONS.linkdeadMs / 1000})`,
    ...abuseUsage(),
    '  --log-level L         fatal, error, warn, info (default), debug',
    '  --log-format F        pretty (one short line a record, coloured) or json (pino\'s JSON lines); default:',
    '                        pretty on a terminal, json when stdout is piped or a file ($LIGHTMUD_LOG_FORMAT too)',
    '',
    'See "Running it in public" in README.md for every limit and advice on proxies, TLS and backups.',
  ].join('\n'),
  async run(args) {
    const { opts: o } = parseOptions(args, {
      world: 'string', db: 'string', 'local-db': 'string', remote: 'boolean', models: 'boolean', 'on-demand': 'boolean', 'world-id': 'string', bus: 'string', 'bus-timeout': 'string', 'shout-every': 'string', 'http-port': 'string', 'telnet-port': 'string', host: 'string', admin: 'string', fresh: 'boolean', 'trust-proxy': 'string',
      sync: 'string', 'snapshot-every': 'string', 'max-connections': 'string', 'max-per-ip': 'string', rate: 'string', burst: 'string',
      'max-frame': 'string', 'max-line': 'string', 'login-timeout': 'string', 'idle-timeout': 'string', linkdead: 'string', 'log-level': 'string', 'log-format': 'string',
      ...Object.fromEntries(ABUSE_LIMITS.map(([flag]) => [flag, 'string' as const])),
    });
    const env = process.env;
    const port = (v: string | undefined, name: string, fallback: number) => {
      const n = intOption(v, name, fallback);
      if (n < 0 || n > 65535) throw new UsageError(`--${name} must be a port number (0-65535), got ${n}`);
      return n;
    };
    if (o.sync !== undefined && o.sync !== 'full' && o.sync !== 'normal') throw new UsageError(`--sync is full or normal, not "${o.sync}"`);
    const level = o['log-level'] ?? 'info';
    if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) throw new UsageError(`unknown --log-level "${level}"`);
    const askedFormat = o['log-format'] ?? (env.LIGHTMUD_LOG_FORMAT || undefined);
    if (askedFormat !== undefined && askedFormat !== 'pretty' && askedFormat !== 'json') throw new UsageError(`--log-format is pretty or json, not "${askedFormat}"`);
    const logFormat = chooseLogFormat(askedFormat, process.stdout);
    const telnetArg = o['telnet-port'] ?? env.TELNET_PORT;
    const pg = isPostgresUrl(o.db);
    if (!pg && o['local-db'] !== undefined) throw new UsageError('--local-db goes with --db postgres://...');
    if (!pg && o.bus === undefined && o['world-id'] !== undefined) throw new UsageError('--world-id goes with --db postgres://... or --bus nats://...');
    if (o.bus === undefined && o['bus-timeout'] !== undefined) throw new UsageError('--bus-timeout goes with --bus nats://...');
    if (o.bus === undefined && o['shout-every'] !== undefined) throw new UsageError('--shout-every goes with --bus nats://...');
    const shoutEvery = o['shout-every'];
    const shoutEveryMs = shoutEvery === undefined ? undefined : shoutEvery === 'off' ? null : seconds(shoutEvery, 'shout-every', 10_000);
    if (shoutEveryMs != null && shoutEveryMs < 0) throw new UsageError(`--shout-every is 0 or more seconds, or off, got ${shoutEvery}`);
    let busUrl: string | null = null;
    if (o.bus !== undefined) {
      try {
        busUrl = parseBusUrl(o.bus);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    const remote = o.remote === true;
    if (remote) {
      if (o.bus === undefined || o['world-id'] === undefined) throw new UsageError('--remote needs --bus nats://HOST:PORT and --world-id NAME: the bus and the world whose shard runs the game');
      if (!WORLD_ID.test(o['world-id'])) throw new UsageError(`--world-id is 1 to 64 letters, digits, _ or - with --remote, not "${o['world-id']}"`);
      for (const flag of ['world', 'fresh', 'local-db', 'sync', 'snapshot-every'] as const) if (o[flag] !== undefined) throw new UsageError(`--${flag} is the shard's business (lightmud shard), not the portal's: drop it with --remote`);
      if (pg) throw new UsageError('--remote keeps only accounts here: --db is a SQLite file (the world\'s PostgreSQL is the shard\'s --db)');
    }
    if (o['on-demand'] && !remote) throw new UsageError('--on-demand is for a portal (--remote): it asks the shards started with --on-demand to open its world');
    if (o.models && !remote) throw new UsageError('--models is for a portal (--remote): a server that runs its world drives its model characters itself');
    const busTimeoutMs = intOption(o['bus-timeout'], 'bus-timeout', remote ? 3000 : 500);
    if (busTimeoutMs < 1 || busTimeoutMs > 60_000) throw new UsageError(`--bus-timeout is 1 to 60000 milliseconds, got ${busTimeoutMs}`);
    const worldId = o['world-id'] ?? DEFAULT_PG_WORLD;
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(worldId)) throw new UsageError(`--world-id is 1 to 64 letters, digits, _ . or -, not "${worldId}"`);
    const options: Partial<ServerOptions> = {
      db: pg ? (o['local-db'] ?? DEFAULT_OPTIONS.db) : (o.db ?? DEFAULT_OPTIONS.db),
      ...(pg ? { pg: { url: o.db!, world: worldId } } : {}),
      fresh: o.fresh ?? false,
      httpPort: port(o['http-port'] ?? env.PORT, 'http-port', DEFAULT_OPTIONS.httpPort),
      telnetPort: telnetArg === 'off' ? null : port(telnetArg, 'telnet-port', DEFAULT_OPTIONS.telnetPort ?? 4000),
      host: o.host ?? env.HOST ?? DEFAULT_OPTIONS.host,
      admins: (o.admin ?? '').split(',').map((s) => s.trim()).filter(Boolean),
      trustProxy: (o['trust-proxy'] ?? '').split(',').map((s) => s.trim()).filter(Boolean),
      sync: o.sync === 'normal' ? 'normal' : 'full',
      snapshotEvery: Math.max(1, intOption(o['snapshot-every'], 'snapshot-every', DEFAULT_OPTIONS.snapshotEvery)),
      maxConnections: intOption(o['max-connections'], 'max-connections', DEFAULT_OPTIONS.maxConnections),
      maxConnectionsPerIp: intOption(o['max-per-ip'], 'max-per-ip', DEFAULT_OPTIONS.maxConnectionsPerIp),
      commandsPerSecond: Math.max(1, intOption(o.rate, 'rate', DEFAULT_OPTIONS.commandsPerSecond)),
      commandBurst: Math.max(1, intOption(o.burst, 'burst', DEFAULT_OPTIONS.commandBurst)),
      maxFrameBytes: Math.max(256, intOption(o['max-frame'], 'max-frame', DEFAULT_OPTIONS.maxFrameBytes)),
      maxLineBytes: Math.max(80, intOption(o['max-line'], 'max-line', DEFAULT_OPTIONS.maxLineBytes)),
      loginTimeoutMs: seconds(o['login-timeout'], 'login-timeout', DEFAULT_OPTIONS.loginTimeoutMs),
      idleTimeoutMs: seconds(o['idle-timeout'], 'idle-timeout', DEFAULT_OPTIONS.idleTimeoutMs),
      linkdeadMs: seconds(o.linkdead, 'linkdead', DEFAULT_OPTIONS.linkdeadMs),
      logger: logFormat === 'pretty' ? { level, stream: prettyStream(process.stdout, wantsColour(process.stdout, env)) } : { level },
    };
    for (const [flag, key, unit] of ABUSE_LIMITS) {
      const v = (o as Record<string, unknown>)[flag] as string | undefined;
      if (v === undefined) continue;
      const n = intOption(v, flag, 0);
      if (n < 0) throw new UsageError(`--${flag} must be 0 or more, got ${n}`);
      (options as Record<string, unknown>)[key] = unit === 's' ? n * 1000 : n;
    }
    if (o.world) options.world = o.world;
    let bus: Bus | null = null;
    let logTo: BusLog | null = null;
    if (busUrl) {
      // The bus is opened before the server (a server that cannot reach it does not start); its log is the server's once there is one.
      const busLog = { info: (obj: object, msg: string) => (logTo ?? console).info(obj, msg), warn: (obj: object, msg: string) => (logTo ?? console).warn(obj, msg) };
      bus = await openBus(busUrl, busLog, remote ? `lightmud portal of ${worldId}` : `lightmud world ${worldId}`);
      // A portal is on the cross-world bus too, as one of its world's portals: who and tell wait for the
      // others at most as long as a world's server would (500 ms), or the --bus-timeout if shorter.
      if (remote) {
        options.remote = { bus, world: worldId, timeoutMs: busTimeoutMs, models: o.models === true, openOnDemand: o['on-demand'] === true };
        options.crossWorld = { bus, world: worldId, timeoutMs: Math.min(500, busTimeoutMs), shared: true, shoutEveryMs };
      } else options.crossWorld = { bus, world: worldId, timeoutMs: busTimeoutMs, shoutEveryMs };
    }
    let server;
    try {
      server = await startServer(options);
    } catch (err) {
      await bus?.close();
      throw err;
    }
    logTo = server.app.log;
    // A stray rejection in one connection's code must not drop every player: log it and carry on.
    process.on('unhandledRejection', (err) => server.app.log.error({ err: err instanceof Error ? err.stack : String(err) }, 'unhandled rejection'));
    return new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) {
          server.app.log.warn({ signal }, 'second signal: exiting now');
          process.exit(1);
        }
        stopping = true;
        server.app.log.info({ signal }, 'signal received; shutting down');
        server.close().then(() => bus?.close()).then(
          () => resolve(process.exitCode === 1 ? 1 : 0),
          (err: unknown) => {
            server.app.log.error({ err: (err as Error).message }, 'shutdown failed');
            resolve(1);
          },
        );
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
      // An exception nobody caught: the network thread may be inconsistent. Tell everyone, save, exit 1.
      process.on('uncaughtException', (err) => {
        server.app.log.fatal({ err: err.stack }, 'uncaught exception; shutting down');
        process.exitCode = 1;
        stop('uncaughtException');
      });
    }).then((code) => {
      // Everything is closed; should a stray handle keep the process alive, do not wait on it.
      setTimeout(() => process.exit(code), 1000).unref();
      return code;
    });
  },
};
