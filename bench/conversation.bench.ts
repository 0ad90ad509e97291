/**
 * Conversation quality of the model characters (server/agents/quality.ts), with the bundled model:
 *
 * conversation_episodes: 60 seeded ten-turn model-vs-model episodes in the bundled world; the rates
 *   of self-naming, names from nowhere, own repeats, graph contradictions (per line), undone actions
 *   and unprompted hostility (per action), and how often a reply shares a content word with the
 *   line it answers.
 * conversation_probe: a person's ten ordinary lines ("Hello, X! How are you today?", "What is this
 *   place?", ...) said in turn to 12 model characters; the same rates over their replies, and replies
 *   missing. The transcript is written to .cache/bench/conversation-probe.md, to be read and scored
 *   by a person (../shared/rubrics/model-replies.md): rules see only some defects.
 * conversation_probe_held_out, _fresh, _fresh_2, _fresh_3 ... _fresh_8: the same with HELD_OUT_LINES, FRESH_LINES,
 *   FRESH_LINES_2 ... FRESH_LINES_8 (see each list for how it was kept out of the corpus); `unsure` counts plain lines.
 *
 * Options (environment): CONVERSATION_EPISODES (60), CONVERSATION_CHARACTERS (12).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execute, World } from '../server/engine/index.js';
import { stageEpisode } from '../server/episodes/stage.js';
import { CORPUS_WORLD, DEFAULT_WORLD, loadWorld } from '../server/world-io/load-world.js';
import { DEFAULT_MODEL_DIR, loadPolicy } from '../server/agents/load.js';
import { runEpisodes } from '../server/agents/episodes.js';
import { agentView } from '../server/agents/view.js';
import { LineJudge, PoolLines, worldProperNames } from '../server/agents/line-judge.js';
import type { Policy } from '../server/agents/policy.js';
import { emptyCounts, episodeQuality, rates, type Flagged } from '../server/agents/quality.js';
import type { HistoryEntry } from '../server/agents/context.js';
import type { Episode } from '../server/episodes/episode.js';
import type { BenchContext } from './report.js';

const CACHE = resolve(fileURLToPath(new URL('../.cache/agents', import.meta.url)));
const OUT = resolve(fileURLToPath(new URL('../.cache/bench', import.meta.url)));

/** What a person says to a model character, in order (one conversation). */
export const PROBE_LINES = [
  'Hello, {name}! How are you today?',
  'What is this place?',
  'What do you do here?',
  'Could you give me something to eat?',
  'What are you carrying?',
  'Do you need any help?',
  'Tell me about yourself.',
  'Is it safe around here?',
  'Have you heard any news?',
  'Thank you. Goodbye!',
];

/**
 * A second conversation, kept out of every writing brief (the corpus writers were told of kinds of
 * ordinary talk, never of these lines): does what works on the lines above carry over to others?
 */
export const HELD_OUT_LINES = [
  'Hi there. Mind if I sit with you a while?',
  "What's your favourite thing about this place?",
  'Do you have any family?',
  "I'm looking for work. Do you know anyone hiring?",
  'What do people eat around here?',
  'Have you always lived here?',
  'Do you like your work?',
  "What's the best way to the town?",
  'Can you keep a secret?',
  'Well, I should be going. Take care!',
];

/**
 * Lines for choosing the ranker's settings by reading the replies (in neither probe above, nor in
 * any writing brief): the two probes stay a test.
 */
export const DEV_LINES = [
  "Good evening! Cold tonight, isn't it?",
  'Where are you from?',
  'Is there somewhere I could sleep tonight?',
  'Who is in charge around here?',
  "I'm so tired. I've been walking all day.",
  'Do you know any good stories?',
  'Are you married?',
  'What would you do with a bag of gold?',
  "Sorry, I didn't mean to bother you.",
  'Farewell, friend.',
];

/**
 * A fresh probe, written on 2026-11-25 after the "ask" episodes of the corpus by someone who had seen
 * neither the corpus nor any reply, told only to avoid the topics of the three lists above: how the
 * characters do on ordinary lines nobody wrote answers for.
 */
export const FRESH_LINES = [
  "Hey! I don't think we've met before.",
  'What should I call you?',
  'I only arrived here this morning, actually.',
  'Do you enjoy music or singing at all?',
  "I'm trying to learn the lute, but badly.",
  'Have you ever travelled far from here?',
  'Do you believe in magic?',
  'What do you hope for in the years ahead?',
  'What makes you laugh?',
  'It was nice meeting you. See you around!',
];

/**
 * A second fresh probe, written on 2026-11-25 (fourth session) before a second round of "ask" episodes
 * was added to the corpus, by someone who saw only this file's other lists (to avoid their lines and
 * subjects) and never the corpus, the writing briefs or any reply; the corpus writers never saw it.
 */
export const FRESH_LINES_2 = [
  'Excuse me, have you got a moment to spare?',
  "I'm a bit nervous around strangers, to be honest.",
  'Do you like animals?',
  'Which season of the year do you like best?',
  'What was your childhood like?',
  'Who is your closest friend?',
  'What are you most afraid of?',
  "What's the best advice anyone ever gave you?",
  'I think I dropped a ring somewhere near here.',
  "Right, I'll leave you in peace. Bye for now!",
];

/**
 * A third fresh probe, written on 2026-11-25 (fourth session) by someone who saw only the other lists
 * (to avoid their lines and subjects) and never the corpus, a brief or a reply; read once, blind,
 * to choose between two versions of the focus rule (policy.ts FOCUS_MISS).
 */
export const FRESH_LINES_3 = [
  'Hello there! You look like a thoughtful sort.',
  'Can you read and write?',
  'Do you pray to any gods?',
  'Want to hear a riddle I just thought of?',
  'I cut my hand earlier and it still stings.',
  'Do you know how to play dice?',
  "Is there anything you wish you'd done differently?",
  'What colour do you like best?',
  'What do you honestly think of me so far?',
  "Good luck to you. I'm off now!",
];

/**
 * A fourth fresh probe, written on 2026-11-25 (sixth session) by someone who saw only the other lists
 * (to avoid their lines and subjects) and never the corpus, a brief, a rule or a reply, after the
 * rules for lines that call for a reaction (unsure.ts: hurt, sorrow, good news, praise, ...) were
 * written and before they were tried on it.
 */
export const FRESH_LINES_4 = [
  'Good morning! Lovely to see a friendly face.',
  "I've already gotten lost twice since I got here.",
  'Do you usually start your day this early?',
  "Ha, fair enough. I'm more of a late riser myself.",
  'What do you do to relax when work is done?',
  'You have a very kind way of speaking.',
  "I'm thinking of staying here for a few weeks.",
  'Do folk here usually welcome newcomers?',
  'If you ever want company on a walk, just ask.',
  "Anyway, I'd best be on my way. Goodbye!",
];

/**
 * A fifth fresh probe, written on 2026-11-25 (sixth session) with the fourth's brief (and its
 * lines to avoid) after the rules for lines that call for a reaction were final: a test only, read
 * blind for the first time against the code from before those rules.
 */
export const FRESH_LINES_5 = [
  'Greetings, neighbour! Mind if I say hello?',
  'I had the strangest dream last night.',
  'Do you ever remember your dreams?',
  'Ha, well, mine are usually about falling off cliffs.',
  'You seem like someone who works very hard.',
  'What part of your day do you look forward to most?',
  'I tried cooking for myself yesterday and burned everything.',
  'I suppose I should leave cooking to the experts.',
  "Any advice for someone who's hopeless in the kitchen?",
  'Thanks for the chat. Have a good day!',
];

/**
 * A sixth fresh probe, written on 2026-11-25 (sixth session) with the fourth's brief (and its
 * lines to avoid) after the rules for lines that call for a reaction were final: a test only, read
 * blind for the first time against the code from before those rules.
 */
export const FRESH_LINES_6 = [
  "Well met! I hope I'm not interrupting anything.",
  'My sister is getting married next spring, you know.',
  "Ha, I still can't quite believe it myself.",
  'Have you ever been to a big wedding?',
  "I'm hoping to find her a nice gift along the way.",
  'What would you give someone as a wedding gift?',
  "Hm, I'll keep that in mind, thank you.",
  "You've got a good head on your shoulders.",
  "If I pass this way again, I'll tell you how it went.",
  'Goodbye for now, and thanks for listening!',
];

/**
 * A seventh fresh probe, written on 2026-11-25 (sixth session) with the fourth's brief after the second
 * round of reaction rules (mishaps, promises, advice, "do you ever ...?") was final: a test only.
 */
export const FRESH_LINES_7 = [
  "Hello! Fine day for a chat, don't you think?",
  'I got caught in a downpour on the road yesterday.',
  "I'm still not quite dry, honestly.",
  'Do you mind the rain, or does it bother you?',
  'I miss home a little more than I expected.',
  "What do you do when you're feeling low?",
  'That sounds sensible. I might try that.',
  "You're very easy to talk to, you know.",
  'Should I write to my family more often, do you think?',
  "I'll let you get back to things. Goodbye!",
];

/**
 * An eighth fresh probe, written on 2026-11-25 (sixth session) with the fourth's brief after the second
 * round of reaction rules (mishaps, promises, advice, "do you ever ...?") was final: a test only.
 */
export const FRESH_LINES_8 = [
  'Good afternoon! I hope the day is treating you well.',
  "I've been thinking about learning a proper trade.",
  'Which skill do you think is most useful to know?',
  "Interesting. I'd never have thought of that one.",
  "I'm not very patient, which might be a problem.",
  'Do you prefer busy, crowded places or quiet ones?',
  "Crowds make my head spin, if I'm honest.",
  "If you're ever short of hands, I learn quickly.",
  'Who taught you most of what you know?',
  'Good health to you, and farewell!',
];

const pct = (x: number) => Number((x * 100).toFixed(2));

export default async function conversation(ctx: BenchContext): Promise<void> {
  const model = resolve(process.env.LIGHTMUD_BENCH_MODEL ?? process.env.LIGHTMUD_MODEL ?? DEFAULT_MODEL_DIR);
  if (!existsSync(model)) {
    ctx.report({ bench: 'conversation', skipped: `no model directory at ${model}` });
    return;
  }
  const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);
  const { policy } = await loadPolicy({ modelDir: model, world, cacheDir: CACHE });
  const checker = new LineJudge(new PoolLines([], [], new World(loadWorld(CORPUS_WORLD, { seed: 1 }).state)), worldProperNames(world));
  mkdirSync(OUT, { recursive: true });

  // ---- seeded model-vs-model episodes -----------------------------------------------------------
  const n = Number(process.env.CONVERSATION_EPISODES ?? (ctx.quick ? 20 : 60));
  const episodes: Episode[] = [];
  await runEpisodes(world, policy, { n, turns: 10, seed: 1, onEpisode: (ep) => void episodes.push(ep) });
  const counts = emptyCounts();
  const flagged: Flagged[] = episodes.flatMap((ep) => episodeQuality(world, ep, checker, counts));
  const r = rates(counts);
  ctx.report({
    bench: 'conversation_episodes', model, episodes: n, turns: 10, lines: counts.lines, actions: counts.actions,
    self_naming_pct: pct(r.self_naming!), absent_name_pct: pct(r.absent_name!), own_repeat_pct: pct(r.own_repeat!), contradiction_pct: pct(r.contradiction!),
    undone_action_pct: pct(r.undone_action!), hostility_pct: pct(r.hostility!), reply_shares_content_pct: pct(r.shares_content!),
    plain_line_pct: pct(r.plain_line!),
  });
  writeFileSync(join(OUT, 'conversation-episodes.md'), episodesMarkdown(world, episodes, flagged));

  // ---- a person's ordinary lines to model characters ----------------------------------------------
  for (const [name, lines, file] of [['conversation_probe', PROBE_LINES, 'conversation-probe.md'], ['conversation_probe_held_out', HELD_OUT_LINES, 'conversation-probe-held-out.md'], ['conversation_probe_fresh', FRESH_LINES, 'conversation-probe-fresh.md'], ['conversation_probe_fresh_2', FRESH_LINES_2, 'conversation-probe-fresh-2.md'], ['conversation_probe_fresh_3', FRESH_LINES_3, 'conversation-probe-fresh-3.md'], ['conversation_probe_fresh_4', FRESH_LINES_4, 'conversation-probe-fresh-4.md'], ['conversation_probe_fresh_5', FRESH_LINES_5, 'conversation-probe-fresh-5.md'], ['conversation_probe_fresh_6', FRESH_LINES_6, 'conversation-probe-fresh-6.md'], ['conversation_probe_fresh_7', FRESH_LINES_7, 'conversation-probe-fresh-7.md'], ['conversation_probe_fresh_8', FRESH_LINES_8, 'conversation-probe-fresh-8.md']] as const) {
    await probe(ctx, world, policy, checker, model, name, lines, join(OUT, file));
  }
  await policy.ranker.release();
  await policy.pool.release();
}

/** One scripted conversation said to a dozen model characters; rates printed, transcript written to `out`. */
export async function probe(ctx: Pick<BenchContext, 'report'>, world: World, policy: Policy, checker: LineJudge, model: string, name: string, lines: readonly string[], out: string): Promise<void> {
  const chars = world.characters().filter((c) => c.policy === 'model');
  const k = Math.min(chars.length, Number(process.env.CONVERSATION_CHARACTERS ?? 12));
  const picked = Array.from({ length: k }, (_, i) => chars[Math.floor((i * chars.length) / k)]!);
  const visitor = world.characters().find((c) => c.policy !== 'model' && /traveller|visitor|pilgrim|pedlar|peddler|stranger/.test(c.name)) ?? world.characters().find((c) => c.policy !== 'model')!;
  const probeCounts = emptyCounts();
  let missing = 0;
  // replies where the model was unsure of its best line and said a plain one (unsure.ts)
  let unsure = 0;
  const md: string[] = [`# Conversation probe${name.endsWith('held_out') ? ' (held-out lines)' : ''}: ${k} model characters, ${lines.length} lines each (model ${model})`, '', `The person speaks as the ${visitor.name}.`, ''];
  const probeEpisodes: Episode[] = [];
  for (const c of picked) {
    const room = world.roomOf(c.id)!;
    const w = stageEpisode(world, room, [c.id, visitor.id]);
    const history: HistoryEntry[] = [];
    const ep: Episode = { id: `probe-${c.id}`, room, characters: [visitor.id, c.id], turns: [] };
    md.push(`## ${c.name} (${c.id}), ${world.room(room)!.name}`, '', `> persona: ${c.persona}`, '');
    let lastObject: string | undefined;
    for (const template of lines) {
      const line = template.replace('{name}', c.name.replace(/^(?:the|a|an) /, ''));
      execute(w, visitor.id, `say ${line}`);
      ep.turns.push({ speaker: visitor.id, say: line });
      history.push({ speaker: 'partner', kind: 'say', text: line });
      const view = agentView(w, c.id, { heard: { from: visitor.id, text: line }, partner: visitor.id, lastObject })!;
      if (view.plan?.lastObject) lastObject = view.plan.lastObject;
      const [choice] = await policy.decide([{ view, history: history.slice() }]);
      if (choice!.why.say === 'unsure') unsure++;
      const turn: Episode['turns'][number] = { speaker: c.id, say: choice!.say };
      if (choice!.say) {
        execute(w, c.id, `say ${choice!.say}`);
        history.push({ speaker: 'self', kind: 'say', text: choice!.say });
      } else missing++;
      // every action is done, as in live play (the episode keeps one a turn; the transcript shows them all)
      const done: string[] = [];
      for (const a of choice!.actions) {
        const out = execute(w, c.id, a);
        if (out.ok) {
          history.push({ speaker: 'self', kind: 'act', text: out.action ?? a });
          turn.action ??= out.action ?? a;
          done.push(out.action ?? a);
        }
      }
      if (!choice!.actions.length && choice!.emote) {
        execute(w, c.id, choice!.emote);
        history.push({ speaker: 'self', kind: 'emote', text: choice!.emote });
        turn.emote = choice!.emote;
      }
      if (turn.say || turn.action || turn.emote) ep.turns.push(turn);
      const extra = [...done.map((a) => `*${a}*`), turn.emote ? `*${turn.emote}*` : ''].filter(Boolean).join(' ');
      md.push(`- **${visitor.name}**: ${line}`, `  - **${c.name}**: ${choice!.say || '(nothing)'} ${extra} _(${choice!.why.say}${choice!.why.act !== 'none' ? `, act: ${choice!.why.act}` : ''})_`);
    }
    md.push('');
    probeEpisodes.push(ep);
  }
  // The visitor's own lines are the probe's; count only the model characters' replies.
  const probeFlagged = probeEpisodes.flatMap((ep) => episodeQuality(world, ep, checker, probeCounts)).filter((f) => !f.text || !lines.some((l) => f.text === l));
  const pr = rates(probeCounts);
  const replies = k * lines.length;
  const count = (d: string) => probeFlagged.filter((f) => f.defect === d).length;
  ctx.report({
    bench: name, model, characters: k, lines_each: lines.length, replies, no_reply: missing, unsure,
    self_naming: count('self_naming'), absent_name: count('absent_name'), own_repeat: count('own_repeat'), contradiction: count('contradiction'),
    reply_shares_content_pct: pct(pr.shares_content!), transcript: out,
  });
  md.push('## Flagged by rules', '', ...probeFlagged.map((f) => `- ${f.episode} turn ${f.turn}: ${f.defect}: ${f.text}`));
  writeFileSync(out, md.join('\n') + '\n');
}

function episodesMarkdown(world: World, episodes: Episode[], flagged: Flagged[]): string {
  const out: string[] = ['# Seeded model-vs-model episodes', ''];
  for (const ep of episodes) {
    out.push(`## ${ep.id}: ${world.room(ep.room)?.name}, ${ep.characters.map((c) => world.character(c)?.name).join(' and ')}`, '');
    ep.turns.forEach((t, i) => {
      const f = flagged.filter((x) => x.episode === ep.id && x.turn === i).map((x) => x.defect);
      out.push(`- **${world.character(t.speaker)?.name}**: ${t.say}${t.action ? ` *${t.action}*` : ''}${t.emote ? ` *${t.emote}*` : ''}${f.length ? ` **[${f.join(', ')}]**` : ''}`);
    });
    out.push('');
  }
  return out.join('\n') + '\n';
}
