/**
 * The MCP server at /mcp: Streamable HTTP (the official SDK's transport), stateful, one MCP
 * session per agent, each with its own AgentSession (one character). Tools come from the table in
 * tools.ts; each result carries the observation as text and as structuredContent (outputSchema
 * OBSERVATION_SCHEMA), and a call the game refuses is `isError: true` with the engine's reason and
 * the closest valid actions. Resources: the character's persona and the current room.
 *
 * Auth: no Authorization header plays as a guest; `Authorization: Bearer KEY` (an agent key) plays
 * as that agent, and every later request of the session must carry the same key.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema, isInitializeRequest,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Log } from '../host/host.js';
import type { AgentHub } from './agent-hub.js';
import type { AgentIdentity, AgentSession, ToolOutcome } from './agent-session.js';
import { observation, type Observation } from './observation.js';
import { OBSERVATION_SCHEMA, TOOLS } from './tools.js';

export const PERSONA_URI = 'lightmud://character/persona';
export const ROOM_URI = 'lightmud://room/current';

const INSTRUCTIONS = [
  'You play one character in a shared fantasy text world (LIGHT-style). Call join first (optionally naming a character).',
  'Every result tells you what you perceived, where you are, who and what is here, what you carry, and your valid actions;',
  'the valid actions are exact commands that would succeed now ("get shovel" -> tool get {object: "shovel"}).',
  'A refused call says why and suggests the closest actions that would work. Others act too: what they did since your last call comes with your next result.',
  'A game master\'s key also opens gm_overview, gm_narrate, gm_create and gm_move, used from the character it joined as.',
].join(' ');

interface McpSession {
  transport: StreamableHTTPServerTransport;
  server: Server;
  agent: AgentSession;
  id?: string;
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** The observation as text for a model that reads only text: what happened, then the situation in brief. */
export function observationText(o: Observation): string {
  const parts: string[] = [];
  if (o.events.length) parts.push(`Since your last call:\n${o.events.map((e) => `- ${e}`).join('\n')}`);
  parts.push(o.text);
  if (o.room) {
    const brief = [
      `[${o.room.name}] exits: ${o.room.exits.map((e) => e.label).join(', ') || 'none'}`,
      `people: ${o.people?.map((p) => p.name).join(', ') || 'nobody'}`,
      `you carry: ${o.inventory?.carrying.join(', ') || 'nothing'}${o.inventory?.wearing.length ? `; wear: ${o.inventory.wearing.join(', ')}` : ''}${o.inventory?.wielding.length ? `; wield: ${o.inventory.wielding.join(', ')}` : ''}`,
      `valid actions: ${o.validActions?.slice(0, 30).join('; ') || 'none'}${(o.validActions?.length ?? 0) > 30 ? `; ... (${o.validActions!.length} in all)` : ''}`,
    ];
    parts.push(brief.join('\n'));
  }
  return parts.join('\n\n');
}

export function toolResult(outcome: ToolOutcome): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: observationText(outcome.observation) }], structuredContent: outcome.observation };
  if (outcome.isError) result.isError = true;
  return result;
}

export class McpEndpoint {
  private sessions = new Map<string, McpSession>();
  /** Sessions whose initialize has not completed yet. */
  private opening = new Set<McpSession>();

  constructor(private hub: AgentHub, private info: { name: string; version: string; maxSessions: number }, private log: Log) {}

  get size(): number {
    return this.sessions.size;
  }

  async handle(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const auth = this.hub.authenticate(req.headers.authorization);
    if (!auth.ok) return void reply.code(401).header('www-authenticate', 'Bearer').send(rpcError(-32001, auth.message));
    const sid = req.headers['mcp-session-id'];
    let s: McpSession | undefined;
    if (typeof sid === 'string' && sid) {
      s = this.sessions.get(sid);
      if (!s) return void reply.code(404).send(rpcError(-32001, 'Session not found: it ended or expired; start a new one with initialize.'));
      const id = s.agent.identity;
      if (id.keyed !== auth.identity.keyed || id.agent !== auth.identity.agent) return void reply.code(403).send(rpcError(-32001, 'This session belongs to another agent key.'));
    } else {
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) return void reply.code(400).send(rpcError(-32000, 'Bad Request: no session id; begin with an initialize request (POST).'));
      if (this.sessions.size + this.opening.size >= this.info.maxSessions) return void reply.code(503).send(rpcError(-32000, `The server is full (${this.info.maxSessions} agent sessions); try again later.`));
      s = this.open(auth.identity);
    }
    reply.hijack();
    try {
      await s.transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'MCP request failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(rpcError(-32603, 'Internal error')));
    }
  }

  private open(identity: AgentIdentity): McpSession {
    const agent = this.hub.create(identity);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        this.opening.delete(s);
        s.id = id;
        this.sessions.set(id, s);
        this.log.info({ agent: identity.agent, session: id }, 'MCP session started');
      },
    });
    const server = this.makeServer(agent);
    const s: McpSession = { transport, server, agent };
    this.opening.add(s);
    transport.onclose = () => this.forget(s);
    void server.connect(transport);
    return s;
  }

  private forget(s: McpSession): void {
    this.opening.delete(s);
    if (s.id && this.sessions.get(s.id) === s) {
      this.sessions.delete(s.id);
      this.log.info({ agent: s.agent.identity.agent, session: s.id }, 'MCP session ended');
    }
    s.agent.end();
  }

  private makeServer(agent: AgentSession): Server {
    const server = new Server({ name: this.info.name, version: this.info.version }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: TOOLS.filter((t) => t.kind !== 'gm' || agent.identity.role === 'gm').map((t) => ({
        name: t.name, title: t.title, description: t.description, inputSchema: t.input, outputSchema: OBSERVATION_SCHEMA as unknown as { type: 'object' },
        annotations: { title: t.title, readOnlyHint: t.kind === 'read', destructiveHint: false, idempotentHint: t.kind === 'read', openWorldHint: false },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => toolResult(await agent.call(req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>)));
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: [
        { uri: PERSONA_URI, name: 'persona', title: 'Your character', description: 'Who your character is: name, description and persona, in its own words.', mimeType: 'text/plain' },
        { uri: ROOM_URI, name: 'room', title: 'The current room', description: 'Where your character is now: the room, people, objects, inventory and valid actions.', mimeType: 'application/json' },
      ],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
      const uri = req.params.uri;
      if (uri !== PERSONA_URI && uri !== ROOM_URI) throw new McpError(ErrorCode.InvalidParams, `No resource ${uri}; there are ${PERSONA_URI} and ${ROOM_URI}.`);
      const c = agent.character;
      if (!c) throw new McpError(ErrorCode.InvalidRequest, 'You are not playing anyone yet: call the join tool first.');
      const state = await agent.currentState();
      if (uri === PERSONA_URI) {
        const text = [`You are ${c.name}.`, state?.character.description ?? '', c.persona].filter(Boolean).join('\n');
        return { contents: [{ uri, mimeType: 'text/plain', text }] };
      }
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(observation(true, '', state, [])) }] };
    });
    return server;
  }

  /** End the sessions idle for longer than the hub's limit. */
  async sweep(now = Date.now()): Promise<void> {
    const idle = new Set(this.hub.idle(now));
    for (const s of [...this.sessions.values(), ...this.opening]) if (idle.has(s.agent)) await s.transport.close().catch(() => {});
    for (const a of idle) a.end();
  }

  async closeAll(): Promise<void> {
    for (const s of [...this.sessions.values(), ...this.opening]) await s.transport.close().catch(() => {});
    this.hub.closeAll();
  }
}
