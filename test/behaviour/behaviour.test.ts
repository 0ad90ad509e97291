/**
 * The behaviour suite (test/behaviour/cases.ts) with the bundled model (models/default, or
 * $LIGHTMUD_MODEL): each case stages its scene in the bundled world, gives the character the
 * partner's line, and checks the character's turn. Prints the pass rate (overall, by kind, and
 * whether each pass came from a rule or from the model) and the known failures.
 *
 * Fails when a case not marked `knownFailure` fails, or when a marked one passes (unmark it).
 * Skipped, with a message, when there is no model directory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { execute, World } from '../../server/engine/index.js';
import { stageEpisode } from '../../server/episodes/stage.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';
import { defaultModelDir, loadPolicy } from '../../server/agents/load.js';
import type { Policy, TurnChoice } from '../../server/agents/policy.js';
import { agentView } from '../../server/agents/view.js';
import { objectOfAction } from '../../server/agents/episodes.js';
import type { HistoryEntry } from '../../server/agents/context.js';
import { CASES, type BehaviourCase, type Outcome } from './cases.js';

const MODEL = defaultModelDir();
const HAVE_MODEL = existsSync(MODEL);
if (!HAVE_MODEL) console.log(`behaviour suite skipped: no model directory at ${MODEL} (train one with lightmud train, or set LIGHTMUD_MODEL)`);

const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);
let policy: Policy;

/** Does the utterance name everything `self` holds (or wears) and nothing else of the world? */
function truthful(w: World, self: string, say: string, part: 'all' | 'worn'): boolean {
  const held = part === 'worn' ? w.objectsIn(self, 'worn') : [...w.objectsIn(self, 'carried'), ...w.objectsIn(self, 'worn'), ...w.objectsIn(self, 'wielded')];
  if (!held.length) return /\bnot (carrying|wearing)\b/.test(say);
  if (!held.every((o) => say.includes(o.name))) return false;
  const heldNames = new Set(held.map((o) => o.name));
  const inside = new Set(w.objects().filter((o) => w.isInside(o.id, self)).map((o) => o.name));
  return w.objects().every((o) => heldNames.has(o.name) || inside.has(o.name) || [...heldNames].some((h) => h.includes(o.name)) || !new RegExp(`\\b${o.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(say));
}

function matches(w: World, c: BehaviourCase, choice: TurnChoice, o: Outcome): boolean {
  if (o.actions && JSON.stringify(choice.actions) !== JSON.stringify(o.actions)) return false;
  if (o.action && choice.actions[0] !== o.action) return false;
  if (o.emote && (choice.actions.length || choice.emote !== o.emote)) return false;
  if (o.says && !o.says.test(choice.say)) return false;
  if (o.truthful && !truthful(w, c.self, choice.say, o.truthful)) return false;
  if (o.noAction && choice.actions.length) return false;
  return true;
}

interface Result {
  c: BehaviourCase;
  pass: boolean;
  choice: TurnChoice;
}

const results: Result[] = [];

async function runCase(c: BehaviourCase): Promise<Result> {
  const w = stageEpisode(world, c.room ?? world.roomOf(c.self)!, [c.self, c.partner]);
  let lastObject: string | undefined;
  const history: HistoryEntry[] = [];
  for (const s of c.setup ?? []) {
    const out = execute(w, s.who === 'self' ? c.self : c.partner, s.command);
    if (!out.ok) throw new Error(`case ${c.id}: setup "${s.command}" failed: ${out.text}`);
    // As in play: the object of the last action seen is what "it" means next.
    lastObject = objectOfAction(out.action ?? '') ?? lastObject;
    history.push({ speaker: s.who, kind: 'act', text: out.action ?? s.command });
  }
  history.push({ speaker: 'partner', kind: 'say', text: c.line });
  const view = agentView(w, c.self, { heard: { from: c.partner, text: c.line }, partners: [c.partner], lastObject });
  if (!view) throw new Error(`case ${c.id}: ${c.self} is not in a room`);
  const [choice] = await policy.decide([{ view, history }]);
  // Every action chosen must be valid, in any case.
  const clone = w.clone();
  for (const a of choice!.actions) expect(execute(clone, c.self, a).ok, `${c.id}: ${a}`).toBe(true);
  return { c, pass: c.expect.some((o) => matches(w, c, choice!, o)), choice: choice! };
}

const describeModel = HAVE_MODEL ? describe : describe.skip;

describeModel(`behaviour suite (${CASES.length} cases, model ${MODEL})`, () => {
  beforeAll(async () => {
    ({ policy } = await loadPolicy({ modelDir: MODEL, world }));
  }, 120_000);

  afterAll(async () => {
    if (results.length) report();
    await policy?.ranker.release();
    await policy?.pool.release();
  });

  it('has at least 40 cases with unique ids, in the bundled world', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(CASES.map((c) => c.id)).size).toBe(CASES.length);
    for (const c of CASES) {
      expect(world.character(c.self), c.id).toBeDefined();
      expect(world.character(c.partner), c.id).toBeDefined();
    }
  });

  it('passes every case not marked as a known failure (and no known failure passes)', async () => {
    for (const c of CASES) results.push(await runCase(c));
    const unexpected = results.filter((r) => !r.pass && !r.c.knownFailure).map((r) => `${r.c.id}: got ${describe_(r.choice)}`);
    const fixed = results.filter((r) => r.pass && r.c.knownFailure).map((r) => `${r.c.id} passes now: unmark knownFailure`);
    expect([...unexpected, ...fixed]).toEqual([]);
  }, 120_000);
});

function describe_(c: TurnChoice): string {
  const act = c.actions.length ? `actions [${c.actions.join('; ')}]` : c.emote ? `emote ${c.emote}` : 'no action';
  return `"${c.say}", ${act} (say: ${c.why.say}, act: ${c.why.act}${c.why.emote ? `, emote: ${c.why.emote}` : ''})`;
}

function report(): void {
  const n = results.length;
  const passed = results.filter((r) => r.pass);
  const lines = [`behaviour suite: ${passed.length}/${n} passed (${((passed.length / n) * 100).toFixed(0)}%) with ${MODEL}`];
  for (const kind of ['request', 'question', 'threat', 'sad', 'social'] as const) {
    const k = results.filter((r) => r.c.kind === kind);
    lines.push(`  ${kind.padEnd(9)} ${k.filter((r) => r.pass).length}/${k.length}`);
  }
  const byRule = passed.filter((r) => r.choice.why.act === 'request' || r.choice.why.act === 'cue' || r.choice.why.say === 'answer' || r.choice.why.say === 'refusal' || r.choice.why.emote === 'cue').length;
  lines.push(`  passes decided by rules (requests, answers, cues): ${byRule}; by the model alone: ${passed.length - byRule}`);
  const known = results.filter((r) => r.c.knownFailure);
  if (known.length) {
    lines.push(`  known failures (${known.length}):`);
    for (const r of known) lines.push(`    ${r.c.id}${r.pass ? ' (PASSES NOW: unmark it)' : ''}: ${r.c.note ?? ''}; got ${describe_(r.choice)}`);
  }
  const failing = results.filter((r) => !r.pass && !r.c.knownFailure);
  for (const r of failing) lines.push(`  FAILED ${r.c.id}: "${r.c.line}" -> ${describe_(r.choice)}`);
  console.log(lines.join('\n'));
}
