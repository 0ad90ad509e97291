/**
 * Every outside agent's session, whatever the way in (MCP now): made here, swept when idle,
 * listed for /api/who, ended at shutdown. Also where a request's `Authorization: Bearer KEY` is
 * turned into an identity.
 */
import type { Host } from '../host/host.js';
import type { AgentKeyStore } from './agent-keys.js';
import { AgentSession, type AgentIdentity, type AgentLimits } from './agent-session.js';

export type AuthResult = { ok: true; identity: AgentIdentity } | { ok: false; message: string };

export interface AgentHubOptions extends AgentLimits {
  /** End a session after this long without a call (0: never). */
  idleMs: number;
}

export class AgentHub {
  readonly sessions = new Set<AgentSession>();

  constructor(readonly host: Host, readonly keys: AgentKeyStore, readonly opts: AgentHubOptions) {}

  /** No Authorization header: a guest. A Bearer agent key: that agent. Anything else: refused. */
  authenticate(header: string | undefined): AuthResult {
    if (!header) return { ok: true, identity: { agent: 'guest', keyed: false, role: 'player' } };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return { ok: false, message: 'Authorization must be "Bearer KEY" with an agent key (lightmud agent-key create NAME), or absent to play as a guest.' };
    const found = this.keys.verify(m[1]!);
    if (!found) return { ok: false, message: 'That agent key is unknown or revoked.' };
    return { ok: true, identity: { agent: found.name, keyed: true, role: found.role } };
  }

  create(identity: AgentIdentity): AgentSession {
    const s = new AgentSession(this.host, identity, this.opts, (ended) => this.sessions.delete(ended));
    this.sessions.add(s);
    return s;
  }

  /** Sessions idle for longer than the limit; the caller ends them (and their transports). */
  idle(now = Date.now()): AgentSession[] {
    if (this.opts.idleMs <= 0) return [];
    return [...this.sessions].filter((s) => now - s.lastUsed > this.opts.idleMs);
  }

  who(): { character: string; name: string; agent: string; idleSeconds: number }[] {
    const now = Date.now();
    return [...this.sessions].filter((s) => s.character).map((s) => ({ character: s.character!.id, name: s.character!.name, agent: s.identity.agent, idleSeconds: Math.round((now - s.lastUsed) / 1000) }));
  }

  closeAll(): void {
    for (const s of [...this.sessions]) s.end();
  }
}
