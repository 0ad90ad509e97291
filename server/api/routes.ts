/**
 * The outside-agent API on the server's fastify app: MCP at /mcp, the tool lists for
 * chat-completion APIs at /api/agent/tools, and the step API at /api/agent/reset and /step.
 * server/net/server.ts calls `registerAgentApi` once and `sweep`/`close` with its own.
 */
import type { FastifyInstance } from 'fastify';
import type { Host, Log } from '../host/host.js';
import type { Db } from '../store/db.js';
import type { ServerOptions } from '../net/limits.js';
import { AgentHub } from './agent-hub.js';
import { AgentKeyStore } from './agent-keys.js';
import { FORMATS, toolsIn, type ToolFormat } from './formats.js';
import { McpEndpoint } from './mcp.js';
import { registerStepApi, StepEpisodes } from './step.js';

export interface AgentApi {
  hub: AgentHub;
  keys: AgentKeyStore;
  mcp: McpEndpoint;
  episodes: StepEpisodes;
  /** Called every second by the server: ends idle agent sessions and episodes. */
  sweep(now?: number): void;
  close(): Promise<void>;
}

export function registerAgentApi(app: FastifyInstance, deps: { host: Host; db: Db; opts: ServerOptions; log: Log; name: string; version: string }): AgentApi {
  const { host, db, opts, log } = deps;
  const keys = new AgentKeyStore(db);
  const hub = new AgentHub(host, keys, { callsPerSecond: opts.commandsPerSecond, callBurst: opts.commandBurst, idleMs: opts.idleTimeoutMs });
  const mcp = new McpEndpoint(hub, { name: deps.name, version: deps.version, maxSessions: opts.maxConnections > 0 ? opts.maxConnections : Infinity }, log);
  const episodes = new StepEpisodes(host, { idleMs: opts.idleTimeoutMs });

  app.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', handler: (req, reply) => mcp.handle(req, reply) });
  app.get('/api/agent/tools', async (req, reply) => {
    const format = ((req.query as Record<string, string | undefined>).format ?? 'openai') as ToolFormat;
    if (!FORMATS.includes(format)) return reply.code(400).send({ error: `format is ${FORMATS.join(' or ')}` });
    return { format, tools: toolsIn(format) };
  });
  registerStepApi(app, hub, episodes);

  let sweeping = false;
  return {
    hub, keys, mcp, episodes,
    sweep(now = Date.now()) {
      episodes.sweep(now);
      if (sweeping) return;
      sweeping = true;
      void mcp.sweep(now).finally(() => (sweeping = false));
    },
    async close() {
      await mcp.closeAll();
    },
  };
}
