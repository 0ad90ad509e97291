/**
 * The lightmud server: HTTP (fastify) with the websocket at /ws and the browser client at /,
 * telnet, the portal (logins and sessions) and the game host worker, wired together.
 *
 *   const server = await startServer({ db: 'x.db', world: 'world.json', httpPort: 0, telnetPort: 0 });
 *   ... server.httpPort, server.telnetPort ...
 *   await server.close();
 */
import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import fastifyWebsocket from '@fastify/websocket';
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { Host, HostUnavailableError, type Log } from '../host/host.js';
import { describeStorageFault } from '../store/db.js';
import { AccountStore } from '../store/accounts.js';
import { registerAgentApi, type AgentApi } from '../api/routes.js';
import { openDb, type Db } from '../store/db.js';
import { Connection, type ServerContext } from './connection.js';
import { AddressBuckets, addressKey, ConnectionCounter, DEFAULT_OPTIONS, type RemoteWorldOptions, type ServerOptions } from './limits.js';
import { Portal } from './portal.js';
import { CrossWorld } from './cross-world.js';
import { hostname } from 'node:os';
import { shardLink } from '../cluster/shard-link.js';
import { claimModels } from '../cluster/model-claim.js';
import { ServerStats } from './stats.js';
import { CrowdRoom } from '../crowd/room.js';
import { crowdRoutes } from '../crowd/routes.js';
import { CrowdStore } from '../crowd/store.js';
import { bundledModelPartner } from '../crowd/partners.js';
import { listenTelnet, type TelnetListener } from './telnet-server.js';
import { refuseWebsocket, SERVER_NAME, SERVER_VERSION, WsConnection } from './websocket.js';

/** An accepted socket over the connection limits carries the reason. */
const REFUSAL = Symbol('lightmud.refusal');
type RefusableSocket = Socket & { [REFUSAL]?: string };
/** How long a refused HTTP connection may take to send the request that gets the reason. */
const REFUSED_GRACE_MS = 3000;

export interface RunningServer {
  opts: ServerOptions;
  httpPort: number;
  telnetPort: number | null;
  host: Host;
  portal: Portal;
  accounts: AccountStore;
  app: FastifyInstance;
  /** Outside agents: MCP at /mcp, the step API, agent keys (server/api). */
  agentApi: AgentApi;
  /** Open connections (HTTP, websocket, telnet) from one address. */
  connectionsFrom(ip: string): number;
  /** The crowd room (null when the server runs without it). */
  crowd: CrowdRoom | null;
  /** The other worlds on a shared bus (null without opts.crossWorld). */
  crossWorld: CrossWorld | null;
  /** Tell everyone, save, close every connection and the database. */
  close(reason?: string): Promise<void>;
}

const CLIENT_DIR = new URL('../../clients/web/', import.meta.url);
const CLIENT_FILES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/client.js': 'client.js',
  '/style.css': 'style.css',
  '/crowd.js': 'crowd.js',
  '/ui.js': 'ui.js',
  '/admin.js': 'admin.js',
  '/favicon.svg': 'favicon.svg',
  '/favicon.ico': 'favicon.svg',
};
const CONTENT_TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml' };

export async function startServer(options: Partial<ServerOptions> = {}): Promise<RunningServer> {
  const opts: ServerOptions = { ...DEFAULT_OPTIONS, ...options };
  const trusted = new Set(opts.trustProxy);
  const app = Fastify({
    logger: opts.logger, bodyLimit: 16 * 1024, logController: new LogController({ disableRequestLogging: true }),
    // req.ip: the client's address from X-Forwarded-For when the peer is a trusted proxy.
    trustProxy: opts.trustProxy.length ? opts.trustProxy : false,
  });
  const log: Log = app.log;
  const startedAt = Date.now();
  let closingNow = false;

  let accountsDb: Db | null = null;
  let host: Host | null = null;
  let crossWorld: CrossWorld | null = null;
  let releaseModels: (() => void) | null = null;
  try {
    // This connection (accounts, tokens) belongs to the network thread, which must never wait on
    // an fsync: synchronous = NORMAL. A power cut may lose a just-issued token or registration;
    // game actions are committed by the host worker with the configured mode.
    accountsDb = openDb(opts.db, { sync: 'normal' });
    const accounts = new AccountStore(accountsDb, { admins: opts.admins });
    if (accounts.unknownAdmins.length) {
      log.warn({ names: accounts.unknownAdmins }, '--admin names no existing account: ignored (register first, then use `lightmud admin grant NAME`); registering such a name later gives no admin role');
    }
    // A portal's link to the shard of a world: its own world's, and (with --on-demand) each crowd pair's.
    const linkTo = (remote: RemoteWorldOptions, world: string) => shardLink({ bus: remote.bus, world, openOnDemand: remote.openOnDemand === true, ...(remote.timeoutMs ? { timeoutMs: remote.timeoutMs } : {}) });
    // A portal with --models drives the world's model characters: only one portal of a world may.
    if (opts.remote?.models) releaseModels = await claimModels(opts.remote.bus, opts.remote.world, `${hostname()} pid ${process.pid}`);
    host = await Host.start({
      db: opts.db, world: opts.world, fresh: opts.fresh, sync: opts.sync, snapshotEvery: opts.snapshotEvery, maxDbBytes: opts.maxDbBytes,
      ...(opts.pg ? { pg: { ...opts.pg, wait: true } } : {}),
    }, opts.remote
      // A portal: the game is the shard's. Model characters are driven by the one portal started with --models
      // (server/cluster/model-claim.ts); on the others they are left alone.
      ? { log, ...(opts.remote.models ? {} : { agents: false as const }), link: linkTo(opts.remote, opts.remote.world) }
      : { log });
    const info = host.info;
    log.info({ world: info.title, source: info.source, store: opts.remote ? `the shard of world ${opts.remote.world} on ${opts.remote.bus.name}` : opts.pg ? `postgres world ${opts.pg.world}` : 'sqlite', restored: info.restored, replayed: info.replayed, diverged: info.diverged, seq: info.seq, ...info.counts }, info.restored === 'seeded' ? 'world loaded from its file' : 'world restored from the database');
    if (info.diverged) log.warn({ diverged: info.diverged }, 'some replayed commands gave other replies than logged (the game code changed since); the replayed state stands');

    const connections = new Set<Connection>();
    const counter = new ConnectionCounter(opts);
    const portal = new Portal(host, accounts, opts, log);
    const stats = new ServerStats();
    const addressFrames = new AddressBuckets(opts.framesPerSecondPerIp, opts.frameBurstPerIp);
    const broadcast = (text: string) => {
      for (const c of connections) if (c.phase === 'playing') c.sendSystem(text);
    };
    const liveHost = host;
    // The other worlds on a shared bus: joined before listening, so a clash of world names stops the start.
    if (opts.crossWorld) {
      crossWorld = new CrossWorld(opts.crossWorld, { portal, title: () => liveHost.info.title, log, broadcast });
      await crossWorld.start();
      log.info({ bus: opts.crossWorld.bus.name, world: opts.crossWorld.world }, 'on the bus: cross-world who and tell');
    }
    const ctx: ServerContext = { host, portal, accounts, opts, counter, addressFrames, log, connections, stats, broadcast, crossWorld };
    host.onFatal((err) => {
      log.error({ err: err.message }, 'the game host cannot run; shutting down');
      running.close('The server has a fault and is shutting down; your character is saved.').then(
        () => (process.exitCode = 1),
        (e: unknown) => log.error({ err: (e as Error).message }, 'shutdown failed'),
      );
    });

    // ---- HTTP ----
    // Every TCP connection to the HTTP port (plain HTTP, keep-alive, websockets) counts against the
    // limits, in total and per address, as telnet's do. One over them is answered with the reason (a 503
    // for HTTP, a too_many_connections frame for a websocket) if it sends a request within a few
    // seconds, and closed either way; it is not counted.
    app.server.on('connection', (socket: Socket) => {
      const ip = addressKey(socket.remoteAddress ?? 'unknown');
      // A trusted proxy carries many clients: its websockets are counted by client address at the upgrade.
      if (trusted.has(socket.remoteAddress ?? '')) return;
      const refusal = counter.open(ip);
      if (refusal) {
        (socket as RefusableSocket)[REFUSAL] = refusal;
        setTimeout(() => socket.destroy(), REFUSED_GRACE_MS).unref();
        return;
      }
      socket.once('close', () => counter.close(ip));
    });
    const httpRequests = new AddressBuckets(opts.httpRequestsPerIp, opts.httpBurstPerIp);
    app.addHook('onRequest', async (req, reply) => {
      if (req.headers.upgrade?.toLowerCase() === 'websocket') return; // the websocket route answers (and budgets its messages)
      const refusal = (req.raw.socket as RefusableSocket)[REFUSAL];
      if (refusal) return reply.code(503).header('connection', 'close').header('retry-after', '10').send({ error: 'too_many_connections', message: refusal });
      const peer = req.socket.remoteAddress ?? 'unknown';
      const ip = addressKey(trusted.has(peer) ? req.ip : peer);
      // Outside agents' calls (MCP, the step API) are moves in the game, as websocket frames are: they
      // share the address's frame budget, not the budget of pages and API reads.
      const agentCall = req.url.startsWith('/mcp') || req.url.startsWith('/api/agent/');
      if (agentCall ? !addressFrames.take(ip) : !httpRequests.take(ip)) {
        const [rate, burst] = agentCall ? [opts.framesPerSecondPerIp, opts.frameBurstPerIp] : [opts.httpRequestsPerIp, opts.httpBurstPerIp];
        return reply.code(429).header('retry-after', '1').send({
          error: 'rate_limited',
          message: `Too many ${agentCall ? 'agent calls' : 'requests'} from your address: at most ${rate} a second (bursts of ${burst}).`,
        });
      }
    });
    await app.register(fastifyWebsocket, { options: { maxPayload: opts.maxFrameBytes } });
    const agentApi = registerAgentApi(app, { host, db: accountsDb, opts, log, name: SERVER_NAME, version: SERVER_VERSION });
    // Liveness: the process answers. Always 200 while it does; whether it can do its work is /readyz.
    app.get('/healthz', async () => ({
      ok: true, server: SERVER_NAME, version: SERVER_VERSION, world: liveHost.info.title,
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000), connections: counter.total, sessions: portal.sessions.size,
      storage: liveHost.storage || accounts.storageFault ? 'cannot write' : 'ok',
    }));
    // Readiness: 200 when players can play and every action is saved; 503 with the reasons otherwise.
    app.get('/readyz', async (_req, reply) => {
      const reasons: string[] = [];
      if (closingNow) reasons.push('the server is shutting down');
      const g = liveHost.storage;
      if (g) reasons.push(`the game cannot save actions: ${describeStorageFault(g)} (${g.code}: ${g.message}) since ${new Date(g.since).toISOString()}; reads are served, actions refused`);
      const a = accounts.storageFault;
      if (a) reasons.push(`accounts and resume tokens cannot be saved (${a.code}: ${a.message}) since ${new Date(a.since).toISOString()}`);
      try {
        await liveHost.summary();
      } catch (err) {
        reasons.push(err instanceof HostUnavailableError ? (liveHost.gameKind === 'shard' ? err.message : 'the game is restarting') : `the game does not answer: ${(err as Error).message}`);
      }
      return reply.code(reasons.length ? 503 : 200).send({ ready: reasons.length === 0, reasons });
    });
    app.get('/api/world', async (_req, reply) => {
      try {
        const summary = await liveHost.summary();
        return { ...summary, players: portal.sessions.size };
      } catch (err) {
        if (err instanceof HostUnavailableError) return reply.code(503).send({ error: err.message });
        throw err;
      }
    });
    app.get('/api/stats', async (req) => {
      const out = {
        connections: counter.total, sessions: portal.sessions.size, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
        commands: stats.commands(), eventLoop: stats.eventLoop(), memoryMB: Math.round(process.memoryUsage().rss / 1048576),
      };
      if ((req.query as Record<string, string>).reset !== undefined) {
        stats.resetEventLoop();
        stats.resetCommands();
      }
      return out;
    });
    app.get('/api/who', async () => {
      const who = portal.who();
      const rooms = new Map<string, string>();
      try {
        for (const c of await liveHost.characters()) rooms.set(c.id, c.room);
      } catch {
        // rooms unknown while the game restarts
      }
      return { count: who.length, players: who.map((w) => ({ ...w, room: rooms.get(w.character) ?? null })), agents: agentApi.hub.who().map((a) => ({ ...a, room: rooms.get(a.character) ?? null })) };
    });
    for (const [path, file] of Object.entries(CLIENT_FILES)) {
      app.get(path, async (_req, reply) => {
        const body = await readFile(new URL(file, CLIENT_DIR));
        return reply.type(CONTENT_TYPES[file.split('.').pop()!] ?? 'application/octet-stream').send(body);
      });
    }
    /**
     * A websocket's address and whether it may stay: through a trusted proxy the client's address
     * (X-Forwarded-For) is counted here, until the socket closes; otherwise its TCP connection was
     * counted when accepted (above), and refused then if over the limits.
     */
    const admitWebsocket = (socket: WebSocket, req: FastifyRequest): { ip: string; refusal: string | null } => {
      const peer = req.socket.remoteAddress ?? 'unknown';
      if (trusted.has(peer)) {
        const ip = addressKey(req.ip);
        const refusal = counter.open(ip);
        if (!refusal) socket.once('close', () => counter.close(ip));
        return { ip, refusal };
      }
      return { ip: addressKey(peer), refusal: (req.raw.socket as RefusableSocket)[REFUSAL] ?? null };
    };
    let crowd: CrowdRoom | null = null;
    if (opts.crowd !== false) {
      // A portal with --on-demand can give each crowd pair a world of its own (tasks with worldPerPair).
      const remote = opts.remote;
      const pairWorld = remote?.openOnDemand ? (world: string) => Host.start({ db: '' }, { log, agents: false, link: linkTo(remote, world) }) : undefined;
      crowd = new CrowdRoom(liveHost, new CrowdStore(accountsDb), { partner: opts.crowd?.partner ?? bundledModelPartner({ shared: () => liveHost.agents?.sharedPolicy() ?? null }), log, ...(opts.crowd?.tickMs ? { tickMs: opts.crowd.tickMs } : {}), ...(pairWorld ? { pairWorld } : {}) });
      crowdRoutes(app, { room: crowd, accounts, admit: admitWebsocket, rate: { perSecond: opts.commandsPerSecond, burst: opts.commandBurst }, page: (file) => readFile(new URL(file, CLIENT_DIR)) });
    }
    app.get('/protocol.ts', async (_req, reply) => reply.type('text/plain; charset=utf-8').send(await readFile(new URL('./protocol.ts', import.meta.url))));
    app.get('/ws', { websocket: true }, (socket, req) => {
      const { ip, refusal } = admitWebsocket(socket, req);
      if (refusal) return refuseWebsocket(socket, refusal);
      new WsConnection(ctx, ip, socket).start();
    });

    await app.listen({ port: opts.httpPort, host: opts.host });
    const addr = app.server.address();
    const httpPort = typeof addr === 'object' && addr ? addr.port : opts.httpPort;
    const mssp = () => ({
      NAME: liveHost.info.title, PLAYERS: String(portal.sessions.size), UPTIME: String(Math.floor(startedAt / 1000)),
      CODEBASE: `${SERVER_NAME} ${SERVER_VERSION}`, FAMILY: 'Custom', GENRE: 'Fantasy', GAMEPLAY: ['Roleplaying', 'Adventure'],
      STATUS: 'Alpha', GAMESYSTEM: 'None', LANGUAGE: 'English', 'CRAWL DELAY': '-1',
      ROOMS: String(liveHost.info.counts.rooms), OBJECTS: String(liveHost.info.counts.objects), MOBILES: String(liveHost.info.counts.characters),
      AREAS: '1', HELPFILES: '1', LEVELS: '0', CLASSES: '0', RACES: '0', SKILLS: '0',
      ANSI: '1', 'UTF-8': '1', GMCP: '1', MCCP: '1', MSDP: '0', MXP: '0', PUEBLO: '0', VT100: '0', XTERM_256_COLORS: '0',
      PORT: String(telnet?.port ?? ''), WEBSITE: `http://${opts.host === '0.0.0.0' ? 'localhost' : opts.host}:${httpPort}/`,
      'PAY TO PLAY': '0', 'PAY FOR PERKS': '0', 'HIRING BUILDERS': '0', 'HIRING CODERS': '0',
    });
    let telnet: TelnetListener | null = null;
    try {
      telnet = opts.telnetPort === null ? null : await listenTelnet(ctx, opts.host, opts.telnetPort, mssp);
    } catch (err) {
      await app.close();
      throw err;
    }

    const sweep = setInterval(() => {
      const now = Date.now();
      for (const c of connections) c.checkTimers(now);
      agentApi.sweep(now);
      addressFrames.prune();
      httpRequests.prune();
      counter.prune();
    }, 1000);
    sweep.unref();
    const heartbeat = setInterval(() => {
      for (const c of connections) if (c instanceof WsConnection) c.heartbeat();
    }, opts.heartbeatMs);
    heartbeat.unref();

    const shown = opts.host === '0.0.0.0' || opts.host === '::' ? 'localhost' : opts.host;
    log.info(
      { event: 'listening', host: opts.host, httpPort, telnetPort: telnet?.port ?? null, http: `http://${shown}:${httpPort}/`, websocket: `ws://${shown}:${httpPort}/ws`, telnet: telnet ? `telnet ${shown} ${telnet.port}` : null },
      `lightmud is up: browser http://${shown}:${httpPort}/ , websocket ws://${shown}:${httpPort}/ws${telnet ? ` , telnet ${shown} ${telnet.port}` : ''}`,
    );

    let closing: Promise<void> | null = null;
    closingNow = false;
    const running: RunningServer = {
      opts, httpPort, telnetPort: telnet?.port ?? null, host, portal, accounts, app, agentApi, crowd, crossWorld,
      connectionsFrom: (ip) => counter.count(ip),
      close(reason = 'The server is shutting down; your character is saved.') {
        closing ??= (async () => {
          closingNow = true;
          clearInterval(sweep);
          clearInterval(heartbeat);
          stats.stop();
          log.info({ connections: connections.size, sessions: portal.sessions.size }, 'shutting down');
          crowd?.close();
          // The other worlds hear that this one is gone (and stop asking it).
          await crossWorld?.close();
          for (const c of [...connections]) c.end(reason);
          portal.closeAll(reason);
          await agentApi.close();
          await telnet?.close();
          await app.close();
          // A portal whose shard does not answer just leaves: the world is saved by its shard, not here.
          await liveHost.close().catch((err: unknown) => {
            if (liveHost.gameKind === 'shard' && err instanceof HostUnavailableError) return log.warn({ err: err.message }, 'the world\'s shard did not answer as this portal left');
            throw err;
          });
          releaseModels?.();
          accountsDb?.close();
          log.info({}, 'stopped; state saved');
        })();
        return closing;
      },
    };
    return running;
  } catch (err) {
    await crossWorld?.close().catch(() => {});
    releaseModels?.();
    await host?.close().catch(() => {});
    accountsDb?.close();
    await app.close().catch(() => {});
    throw err;
  }
}
