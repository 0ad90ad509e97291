/**
 * State-update cases (world-data/eval/state-updates.json), like the unit tests of the LLM
 * game-master papers: a start state, the calls an actor makes, and the expected end state or the
 * expected refusal. Whatever keeps the world (this engine, or a model acting as game master)
 * plugs in as a StateUpdateAdapter; `lightmud eval --task state-updates` and
 * test/api/state-updates.test.ts run every case through one.
 */
import { readFileSync } from 'node:fs';
import { World, buildWorldState, execute, type ObjectNode, type Relation, type WorldFile } from '../engine/index.js';
import { TOOLS_BY_NAME } from './tools.js';

export const DEFAULT_CASES = new URL('../../world-data/eval/state-updates.json', import.meta.url).pathname;

export type Call = string | { tool: string; args: Record<string, string> };

export type SetupOp =
  | { move: string; to: string; rel: Relation }
  | { create: Partial<ObjectNode> & { id: string; name: string }; to: string; rel: Relation };

export interface StateCase {
  id: string;
  /** The engine action (or command) the case is about. */
  action: string;
  about: string;
  world: string;
  actor: string;
  setup?: SetupOp[];
  calls: Call[];
  expect: {
    /** Of the last call. */
    ok: boolean;
    /** A substring of the last reply. */
    text?: string;
    /** The engine constraint that refused the last call (checked when the adapter reports one). */
    failed?: string;
    /** Node id -> "in X", "on X", "carried by X", "worn by X", "wielded by X". */
    state?: Record<string, string>;
    /** Objects that must be gone. */
    gone?: string[];
    /** Every node is where it was before the calls. */
    unchanged?: boolean;
  };
}

export interface StateCaseFile {
  format: 'lightmud-state-updates';
  version: 1;
  about: string;
  worlds: Record<string, WorldFile>;
  cases: StateCase[];
}

/** Where every node is: "in garden", "carried by kitty"; null for a node that is gone. */
export type Places = Record<string, string | null>;

export interface StateUpdateAdapter {
  readonly name: string;
  /** Start a case: this world, then these setup moves. */
  start(world: WorldFile, setup: SetupOp[]): Promise<void>;
  /** One call by `actor`: was it carried out, what the actor was told, and (if known) the constraint that refused it. */
  act(actor: string, call: Call): Promise<{ ok: boolean; text: string; failed?: string }>;
  /** Where each of these nodes is now. */
  places(ids: string[]): Promise<Places>;
}

export function readCases(path = DEFAULT_CASES): StateCaseFile {
  const data = JSON.parse(readFileSync(path, 'utf8')) as StateCaseFile;
  if (data.format !== 'lightmud-state-updates' || !Array.isArray(data.cases)) throw new Error(`${path}: not a lightmud-state-updates file`);
  for (const c of data.cases) if (!data.worlds[c.world]) throw new Error(`${path}: case ${c.id}: no world "${c.world}"`);
  return data;
}

/** A call as the line of game input it stands for (tool calls through the tool table). */
export function callText(call: Call): string {
  if (typeof call === 'string') return call;
  const tool = TOOLS_BY_NAME.get(call.tool);
  const text = tool?.command(call.args);
  if (!text) throw new Error(`no game command for tool "${call.tool}"`);
  return text;
}

const place = (rel: Relation, parent: string) => (rel === 'in' || rel === 'on' ? `${rel} ${parent}` : `${rel} by ${parent}`);

/** The built-in adapter: this engine, on a fresh world per case. */
export class EngineAdapter implements StateUpdateAdapter {
  readonly name = 'engine';
  private world!: World;

  async start(file: WorldFile, setup: SetupOp[]): Promise<void> {
    this.world = new World(buildWorldState([{ file: 'state-updates', data: structuredClone(file) }], { seed: 1 }).state);
    for (const op of setup) {
      if ('move' in op) this.world.move(op.move, op.to, op.rel);
      else {
        const node: ObjectNode = {
          kind: 'object', prefix: 'a', description: '', gettable: true, container: false, surface: false, weapon: false, wearable: false, food: false, drink: false,
          ...op.create,
        };
        this.world.add(node, { parent: op.to, rel: op.rel });
      }
    }
  }

  async act(actor: string, call: Call): Promise<{ ok: boolean; text: string; failed?: string }> {
    const out = execute(this.world, actor, callText(call));
    return out.failed ? { ok: out.ok, text: out.text, failed: out.failed } : { ok: out.ok, text: out.text };
  }

  async places(ids: string[]): Promise<Places> {
    const out: Places = {};
    for (const id of ids) {
      const p = this.world.has(id) ? this.world.placement(id) : undefined;
      out[id] = p ? place(p.rel, p.parent) : null;
    }
    return out;
  }
}

export interface CaseResult {
  id: string;
  action: string;
  pass: boolean;
  /** What did not match, in words. */
  problems: string[];
}

/** Every node id of a world file (rooms have no place; characters and objects do). */
function nodeIds(file: WorldFile, setup: SetupOp[]): string[] {
  return [...(file.characters ?? []).map((c) => c.id), ...(file.objects ?? []).map((o) => o.id), ...setup.flatMap((op) => ('create' in op ? [op.create.id] : []))];
}

export async function runCase(adapter: StateUpdateAdapter, file: StateCaseFile, c: StateCase): Promise<CaseResult> {
  const world = file.worlds[c.world]!;
  const setup = c.setup ?? [];
  const problems: string[] = [];
  await adapter.start(world, setup);
  const ids = nodeIds(world, setup);
  const before = await adapter.places(ids);
  let last: { ok: boolean; text: string; failed?: string } = { ok: false, text: '' };
  for (const call of c.calls) last = await adapter.act(c.actor, call);
  const after = await adapter.places(ids);
  const e = c.expect;
  if (last.ok !== e.ok) problems.push(`expected the last call to be ${e.ok ? 'carried out' : 'refused'}, it was ${last.ok ? 'carried out' : 'refused'}: ${JSON.stringify(last.text)}`);
  if (e.text !== undefined && !last.text.includes(e.text)) problems.push(`expected the reply to contain ${JSON.stringify(e.text)}, got ${JSON.stringify(last.text)}`);
  if (e.failed !== undefined && last.failed !== undefined && last.failed !== e.failed) problems.push(`expected refusal by ${e.failed}, got ${last.failed}`);
  for (const [id, want] of Object.entries(e.state ?? {})) if (after[id] !== want) problems.push(`${id}: expected ${want}, is ${after[id] ?? 'gone'}`);
  for (const id of e.gone ?? []) if (after[id] !== null) problems.push(`${id}: expected gone, is ${after[id]}`);
  if (e.unchanged) for (const id of ids) if (after[id] !== before[id]) problems.push(`${id}: expected unchanged (${before[id] ?? 'gone'}), is ${after[id] ?? 'gone'}`);
  return { id: c.id, action: c.action, pass: problems.length === 0, problems };
}

export async function runCases(adapter: StateUpdateAdapter, file: StateCaseFile): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  for (const c of file.cases) out.push(await runCase(adapter, file, c));
  return out;
}
