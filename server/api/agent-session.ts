/**
 * One outside agent's hold on one character: a Driver of the host (kind "agent"), like a human
 * player's Session, but answering tool calls instead of typed lines. What others do while the agent
 * thinks is kept and handed back with its next call. Calls run one at a time, in order, under the
 * same rate limit as a connection's commands.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { CharacterState, EventSummary } from '../net/protocol.js';
import { HostUnavailableError, type Driver, type Host } from '../host/host.js';
import { matchCharacter } from '../net/portal.js';
import { TokenBucket } from '../net/limits.js';
import { exitCommands, observation, suggestions, type Observation } from './observation.js';
import { TOOLS, TOOLS_BY_NAME } from './tools.js';
import type { AgentRole } from './agent-keys.js';

export interface AgentIdentity {
  /** The agent key's name, or "guest". */
  agent: string;
  /** Whether it came with an agent key. */
  keyed: boolean;
  /** A game master's key also opens the gm_* tools. */
  role: AgentRole;
}

export interface ToolOutcome {
  isError: boolean;
  observation: Observation;
}

export interface AgentLimits {
  callsPerSecond: number;
  callBurst: number;
}

const MAX_INBOX = 100;

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map<string, ValidateFunction>(TOOLS.map((t) => [t.name, ajv.compile(t.input)]));

export class AgentSession implements Driver {
  readonly kind = 'agent' as const;
  /** States are pushed while the agent holds a character, so a call rarely waits for one. */
  readonly wantsState = true;
  readonly causeName: string;
  character: { id: string; name: string; persona: string } | null = null;
  lastUsed = Date.now();
  private inbox: string[] = [];
  private latest: CharacterState | null = null;
  private bucket: TokenBucket;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private host: Host, readonly identity: AgentIdentity, limits: AgentLimits, private onEnd: (s: AgentSession) => void = () => {}) {
    this.causeName = identity.agent;
    this.bucket = new TokenBucket(limits.callsPerSecond, limits.callBurst);
  }

  // ---- Driver ------------------------------------------------------------------------------------

  perceive(text: string, _event: EventSummary): void {
    this.inbox.push(text);
    if (this.inbox.length > MAX_INBOX) this.inbox.splice(0, this.inbox.length - MAX_INBOX);
  }

  state(state: CharacterState): void {
    this.latest = state;
  }

  arrive(look: string, state: CharacterState | null): void {
    this.inbox.push(look);
    this.latest = state;
  }

  detached(reason: string): void {
    this.character = null;
    this.latest = null;
    this.inbox.push(reason);
  }

  // ---- calls -------------------------------------------------------------------------------------

  /** Run one tool call (after the ones before it). Never throws for a bad call: it says what was wrong. */
  call(name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
    this.lastUsed = Date.now();
    if (!this.bucket.take()) return Promise.resolve(this.error('Too many calls: slow down and try again in a moment.'));
    const run = this.queue.then(() => this.run(name, args));
    this.queue = run.catch(() => {});
    return run;
  }

  /** The character's state now (for resources and the step API). */
  async currentState(): Promise<CharacterState | null> {
    if (!this.character) return null;
    return (this.latest = await this.host.state(this.character.id));
  }

  /** Let the character go (the MCP session ended or expired). */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.character) this.host.detach(this.character.id, this);
    this.character = null;
    this.onEnd(this);
  }

  private drain(): string[] {
    const out = this.inbox;
    this.inbox = [];
    return out;
  }

  private error(text: string, state: CharacterState | null = null, extra: Partial<Observation> = {}): ToolOutcome {
    return { isError: true, observation: { ...observation(false, text, state, this.drain()), ...extra } };
  }

  private async run(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    if (this.closed) return this.error('This agent session has ended; start a new one.');
    const tool = TOOLS_BY_NAME.get(name);
    if (!tool) return this.error(`There is no tool "${name}". Tools: ${TOOLS.map((t) => t.name).join(', ')}.`);
    const validate = validators.get(name)!;
    if (!validate(args)) {
      const why = (validate.errors ?? []).map((e) => `${e.instancePath.replace(/^\//, '') || 'arguments'} ${e.message ?? 'invalid'}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as string[]).join(', ')})` : ''}`).join('; ');
      return this.error(`Bad arguments for ${name}: ${why}.`);
    }
    const a = args as Record<string, string>;
    try {
      if (name === 'join') return await this.join(a.character);
      if (tool.kind === 'gm' && this.identity.role !== 'gm') return this.error(`${name} is for game masters: an agent key made with lightmud agent-key create NAME --gm.`);
      if (name === 'gm_overview') return await this.overview();
      if (!this.character) {
        const free = await this.host.freeCharacters();
        return this.error(`You are not playing anyone yet: call join first${free.length ? ` (free characters: ${free.slice(0, 20).map((c) => c.name).join(', ')})` : '; every character is taken right now'}.`);
      }
      const id = this.character.id;
      if (tool.kind === 'gm') return await this.gm(name, args);
      if (name === 'valid_actions') {
        const state = await this.currentState();
        const list = state ? [...state.validActions, ...exitCommands(state)] : [];
        return { isError: false, observation: observation(true, list.length ? `You can: ${list.join('; ')}.` : 'There is nothing you can do here.', state, this.drain()) };
      }
      const command = tool.command(a)!;
      const r = await this.host.submit(id, command);
      if (this.character?.id !== id) return this.error('Your character was taken from you meanwhile; call join again.');
      const state = r.states[id] ?? (await this.currentState());
      if (r.states[id]) this.latest = r.states[id]!;
      const events = this.drain();
      if (r.ok) return { isError: false, observation: observation(true, r.text, state, events) };
      const pool = state ? [...state.validActions, ...exitCommands(state)] : [];
      const close = suggestions(command, tool.verb, pool);
      const text = close.length ? `${r.text}\nYou could: ${close.join('; ')}.` : r.text;
      return { isError: true, observation: { ...observation(false, text, state, events), suggestions: close } };
    } catch (err) {
      if (err instanceof HostUnavailableError) return this.error(err.message);
      throw err;
    }
  }

  // ---- the game master's tools ----------------------------------------------------------------

  private async overview(): Promise<ToolOutcome> {
    const [summary, characters] = await Promise.all([this.host.summary(), this.host.characters()]);
    const lines = summary.rooms.map((r) => {
      const here = characters.filter((c) => c.roomId === r.id).map((c) => `${c.name} (${this.host.driverOf(c.id)?.kind ?? 'nobody'})`);
      return `${r.name} [${r.id}]: ${here.join(', ') || 'nobody'}; exits: ${r.exits.map((e) => `${e.label} -> ${e.to}`).join(', ') || 'none'}; ${r.objects} objects`;
    });
    const state = await this.currentState();
    return { isError: false, observation: observation(true, `${summary.title}: ${summary.counts.rooms} rooms, ${summary.counts.characters} characters, ${summary.counts.objects} objects.\n${lines.join('\n')}`, state, this.drain()) };
  }

  private async gm(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const actor = this.character!.id;
    const word = (v: unknown) => String(v ?? '').replace(/[\u0000-\u001f\u007f+]+/g, ' ').trim();
    const r =
      name === 'gm_narrate' ? await this.host.admin({ op: 'narrate', actor, text: word(args.text) }, null)
      : name === 'gm_create' ? await this.host.admin({ op: 'create', actor, spec: [word(args.name).toLowerCase(), ...((args.affordances as string[] | undefined) ?? []).map((f) => `+${f}`)].join(' ') }, null)
      : await this.host.admin({ op: 'teleport', actor, who: word(args.character), to: word(args.to) }, null);
    const state = await this.currentState();
    return { isError: !r.ok, observation: observation(r.ok, r.text, state, this.drain()) };
  }

  private async join(query: string | undefined): Promise<ToolOutcome> {
    if (this.character) {
      const state = await this.currentState();
      return { isError: false, observation: observation(true, `You are already playing ${this.character.name}.\n${await this.host.look(this.character.id)}`, state, this.drain()) };
    }
    const free = await this.host.freeCharacters();
    if (!free.length) return this.error('Every character is being played right now; try again later.');
    let pick = free[0]!;
    if (query) {
      const found = matchCharacter(free, query);
      if (found === 'ambiguous') return this.error(`"${query}" matches several free characters; use the id. Free: ${free.slice(0, 20).map((c) => `${c.name} (${c.id})`).join(', ')}.`);
      if (!found) {
        const any = matchCharacter(await this.host.characters(), query);
        const taken = any && any !== 'ambiguous' ? `Someone else is playing ${any.name}` : `There is no character "${query}"`;
        return this.error(`${taken}. Free characters: ${free.slice(0, 20).map((c) => c.name).join(', ')}.`);
      }
      pick = found;
    }
    if (this.host.driverOf(pick.id)) return this.error(`Someone else just took ${pick.name}; call join again.`);
    this.host.attach(pick.id, this);
    this.character = { id: pick.id, name: pick.name, persona: pick.persona ?? '' };
    const [look, state] = await Promise.all([this.host.look(pick.id), this.currentState()]);
    const persona = pick.persona ? `\nYou are ${pick.name}. ${pick.persona}` : '';
    return { isError: false, observation: observation(true, `You are now ${pick.name}.${persona}\n${look}`, state, this.drain()) };
  }
}
