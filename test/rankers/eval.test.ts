/** LIGHT-style evaluation: ParlAI reading with accumulation, metric arithmetic, baselines, `lightmud eval`. */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accumulate, parseParlai, parseParlaiLine, ParlaiFormatError } from '../../models/eval/parlai.js';
import { scoreExample, summarize } from '../../models/eval/metrics.js';
import { IrRanker, RandomRanker, irWords } from '../../models/eval/baselines.js';
import { evaluate, scoresFromRanking } from '../../models/eval/evaluate.js';
import { evalCommand } from '../../server/cli/commands/eval.js';
import { main } from '../../server/cli/main.js';
import { cleanupTempDirs, makeTinyModel, tempDir } from './tiny-model.js';

afterAll(() => cleanupTempDirs());

const line = (fields: Record<string, string>) => Object.entries(fields).map(([k, v]) => `${k}:${v}`).join('\t');

describe('ParlAI LIGHT format', () => {
  it('parses fields, escapes and candidate lists', () => {
    const m = parseParlaiLine(line({
      text: '_setting_name Dungeon\\n_partner_say a\\tb \\\\n',
      labels: 'yes|no',
      label_candidates: 'one|two \\| three|four__PIPE__five|yes',
      episode_done: 'True',
      extra: 'x:y',
    }), 7, 'f.txt');
    expect(m.text).toBe('_setting_name Dungeon\n_partner_say a\tb \\n');
    expect(m.labels).toEqual(['yes', 'no']);
    expect(m.candidates).toEqual(['one', 'two | three', 'four|five', 'yes']);
    expect(m.episodeDone).toBe(true);
    expect(m.fields.extra).toBe('x:y');
    expect(parseParlaiLine('text:hi\teval_labels:there', 1).labels).toEqual(['there']);
    expect(parseParlaiLine('text:hi\tlabels:there\tepisode_done:False', 1).episodeDone).toBe(false);
  });

  it('reports malformed lines with file, line number and problem', () => {
    expect(() => parseParlai('text:a\tlabels:b\n\ntext:c\tlabels', 'data.txt')).toThrow(new ParlaiFormatError('data.txt:3: field "labels" is not key:value (fields are tab-separated key:value pairs)'));
    expect(() => parseParlai('labels:b', 'd.txt')).toThrow('d.txt:1: no text: field');
    expect(() => parseParlai('text:a\tlabel_candidates:x|y', 'd.txt')).toThrow('d.txt:1: no labels: (or eval_labels:) field');
    expect(() => parseParlai('text:a\tlabels:b\tepisode_done:maybe', 'd.txt')).toThrow('d.txt:1: episode_done must be True or False, got "maybe"');
    expect(() => parseParlai('text:a\ttext:b\tlabels:c', 'd.txt')).toThrow('d.txt:1: field "text" appears twice');
  });

  it('accumulates contexts within an episode, adding the previous gold label as the self line', () => {
    const content = [
      line({ text: '_setting_name Dungeon\\n_self_name prisoner\\n_partner_say who goes there', labels: 'only me', label_candidates: 'only me|go away' }),
      line({ text: '_partner_say what do you want', labels: 'bread', label_candidates: 'bread|gold', episode_done: 'True' }),
      line({ text: '_task_speech\\n_setting_name Forest\\n_partner_say hello', labels: 'hi', label_candidates: 'hi|bye', episode_done: 'True' }),
      line({ text: '_partner_say only me', labels: 'fine', label_candidates: 'fine|x' }),
      line({ text: '_partner_say you said fine', labels: 'yes', label_candidates: 'yes|no', episode_done: 'True' }),
    ].join('\n');
    const ex = accumulate(parseParlai(content), 'dialogue');
    expect(ex.map((e) => [e.episode, e.turn, e.line])).toEqual([[0, 0, 1], [0, 1, 2], [1, 0, 3], [2, 0, 4], [2, 1, 5]]);
    expect(ex[0]!.context).toBe('_task_speech\n_setting_name Dungeon\n_self_name prisoner\n_partner_say who goes there');
    expect(ex[1]!.context).toBe(`${ex[0]!.context}\n_self_say only me\n_partner_say what do you want`);
    expect(ex[2]!.context).toBe('_task_speech\n_setting_name Forest\n_partner_say hello'); // new episode, task line not repeated
    expect(ex[4]!.context).toBe('_task_speech\n_partner_say only me\n_partner_say you said fine'); // label already in the text: not added twice
    const act = accumulate(parseParlai(content), 'action', { taskLine: false });
    expect(act[1]!.context).toBe('_setting_name Dungeon\n_self_name prisoner\n_partner_say who goes there\n_self_act only me\n_partner_say what do you want');
    expect(accumulate(parseParlai(content), 'emote', { addLabels: false })[1]!.context).toBe('_task_emote\n_setting_name Dungeon\n_self_name prisoner\n_partner_say who goes there\n_partner_say what do you want');
  });
});

describe('metrics', () => {
  it('Recall@1 and reciprocal rank, hand computed', () => {
    expect(scoreExample([0.9, 0.5, 0.1], [0])).toEqual({ hit1: 1, rr: 1, n: 3 });
    expect(scoreExample([0.9, 0.5, 0.1], [1])).toEqual({ hit1: 0, rr: 0.5, n: 3 });
    expect(scoreExample([0.9, 0.5, 0.1], [2])).toEqual({ hit1: 0, rr: 1 / 3, n: 3 });
    expect(scoreExample([0.1, 0.5, 0.9], [2, 0])).toEqual({ hit1: 1, rr: 1, n: 3 }); // best gold counts
    const s = summarize([scoreExample([3, 2, 1], [0]), scoreExample([3, 2, 1], [1]), scoreExample([3, 2, 1], [2]), scoreExample([1, 2, 3, 4], [0])]);
    expect(s.n).toBe(4);
    expect(s.recall_at_1).toBeCloseTo(1 / 4, 12);
    expect(s.mrr).toBeCloseTo((1 + 1 / 2 + 1 / 3 + 1 / 4) / 4, 12);
    expect(s.candidates).toBeCloseTo(13 / 4, 12);
  });

  it('ties count by their expectation under random tie-breaking', () => {
    // All 4 tied, one gold: R@1 = 1/4, MRR = (1 + 1/2 + 1/3 + 1/4) / 4.
    const all = scoreExample([0, 0, 0, 0], [2]);
    expect(all.hit1).toBeCloseTo(0.25, 12);
    expect(all.rr).toBeCloseTo((1 + 1 / 2 + 1 / 3 + 1 / 4) / 4, 12);
    // One above, gold tied with one other: rank 2 or 3.
    const mid = scoreExample([5, 1, 1, 0], [1]);
    expect(mid.hit1).toBe(0);
    expect(mid.rr).toBeCloseTo((1 / 2 + 1 / 3) / 2, 12);
    // Three tied at the top, two gold: first gold at 1 w.p. 2/3, at 2 w.p. 1/3.
    const two = scoreExample([1, 1, 1], [0, 1]);
    expect(two.hit1).toBeCloseTo(2 / 3, 12);
    expect(two.rr).toBeCloseTo(2 / 3 + 1 / 6, 12);
  });

  it('a ranking keeps ties within a stage and orders reranked candidates above the rest', () => {
    const s = scoresFromRanking([
      { text: 'a', index: 2, score: 3, crossScore: 3 },
      { text: 'b', index: 0, score: 1, crossScore: 1 },
      { text: 'c', index: 1, score: 1 },
      { text: 'd', index: 3, score: 1 },
    ], 4);
    expect([...s]).toEqual([-1, -2, -0, -2]);
  });
});

describe('baselines', () => {
  it('IR: TF-IDF cosine, hand computed', async () => {
    expect(irWords('_partner_say The KING\'s sword, the gold!')).toEqual(['king\'s', 'sword', 'gold']);
    // Documents: 'sword gold', 'sword', 'bread'  => N = 3, df(sword) = 2, df(gold) = 1, df(bread) = 1.
    const ir = new IrRanker().fit(['sword gold', 'sword', 'bread']);
    const idfSword = Math.log(4 / 3) + 1;
    const idfGold = Math.log(4 / 2) + 1;
    const idfUnseen = Math.log(4 / 1) + 1;
    expect(ir.idf('sword')).toBeCloseTo(idfSword, 12);
    expect(ir.idf('dragon')).toBeCloseTo(idfUnseen, 12);
    // context "sword sword gold": tf(sword) = 1 + ln 2
    const ranked = await ir.rank('sword sword gold', ['bread', 'gold', 'sword']);
    const cw = (1 + Math.log(2)) * idfSword;
    const cg = idfGold;
    const norm = Math.hypot(cw, cg);
    expect(ranked.map((r) => r.text)).toEqual(['sword', 'gold', 'bread']);
    expect(ranked[0]!.score).toBeCloseTo(cw / norm, 12);
    expect(ranked[1]!.score).toBeCloseTo(cg / norm, 12);
    expect(ranked[2]!.score).toBe(0);
  });

  it('random: seeded, and about 1/n Recall@1', async () => {
    const cands = Array.from({ length: 20 }, (_, i) => `c${i}`);
    const a = await new RandomRanker(3).rank('', cands);
    const b = await new RandomRanker(3).rank('', cands);
    expect(a.map((r) => r.index)).toEqual(b.map((r) => r.index));
    const examples = Array.from({ length: 2000 }, (_, i) => ({ line: i + 1, episode: i, turn: 0, context: '', labels: ['c0'], candidates: cands }));
    const res = await evaluate(examples, new RandomRanker(1), { task: 'dialogue' });
    expect(res.recall_at_1).toBeGreaterThan(0.03);
    expect(res.recall_at_1).toBeLessThan(0.07);
    expect(res.mrr).toBeGreaterThan(0.14); // expectation: H(20)/20 = 0.1799
    expect(res.mrr).toBeLessThan(0.22);
  });

  it('IR beats random on data where the answer echoes the context', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => {
      const w = ['sword', 'bread', 'gold', 'dragon', 'castle'][i % 5]!;
      const cands = ['bread please', 'the sword is mine', 'gold coins', 'a dragon', 'the castle gate'];
      const gold = cands.find((c) => c.includes(w))!;
      return line({ text: `_partner_say where is the ${w}`, labels: gold, label_candidates: cands.join('|'), episode_done: 'True' });
    });
    const ex = accumulate(parseParlai(rows.join('\n')), 'dialogue');
    const ir = new IrRanker().fit(ex.flatMap((e) => [e.context, ...e.candidates]));
    expect((await evaluate(ex, ir, { task: 'dialogue' })).recall_at_1).toBe(1);
  });
});

describe('lightmud eval', () => {
  async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
    try {
      return { code: await main(['eval', ...args]), out, err };
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  }

  const data = tempDir();
  const dialogue = join(data, 'dialogue.txt');
  writeFileSync(dialogue, [
    line({ text: '_setting_name castle\\n_partner_say give me your sword', labels: 'here is my sword', label_candidates: 'i want bread|here is my sword|hello' }),
    line({ text: '_partner_say and the gold', labels: 'the gold is yours', label_candidates: 'the gold is yours|goodbye|a dragon', episode_done: 'True' }),
    line({ text: '_partner_say i want ale', labels: 'ale for you', label_candidates: 'no|ale for you|run', episode_done: 'True' }),
  ].join('\n') + '\n');
  const emote = join(data, 'emote.txt');
  writeFileSync(emote, [
    line({ text: '_partner_say that joke was funny laugh', labels: 'laugh', episode_done: 'True' }),
    line({ text: '_partner_say i am sad i cry', labels: 'cry', episode_done: 'True' }),
  ].join('\n'));

  it('evaluates a model directory and prints Recall@1/3, MRR, n and a JSON last line', async () => {
    const model = makeTinyModel();
    const { code, out } = await run(['--task', 'dialogue', '--data', dialogue, '--model', model]);
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/Recall@1\/3\s+1\.0000/);
    expect(out.join('\n')).toMatch(/^n\s+3$/m);
    const last = JSON.parse(out.at(-1)!);
    expect(last).toMatchObject({ task: 'dialogue', n: 3, recall_at_1: 1, mrr: 1, candidates: 3, model });
    // Wilson's 95% interval for 3 of 3: wide, as three examples deserve
    expect(last.recall_at_1_ci95[0]).toBeCloseTo(0.4385, 3);
    expect(last.recall_at_1_ci95[1]).toBe(1);
    const re = await run(['--task', 'dialogue', '--data', dialogue, '--model', model, '--rerank', '2']);
    expect(JSON.parse(re.out.at(-1)!)).toMatchObject({ n: 3, recall_at_1: 1, rerank: 2 });
  });

  it('ranks emotes among the 22 when a line has no candidates, and prints accuracy', async () => {
    const { code, out } = await run(['--task', 'emote', '--data', emote, '--model', makeTinyModel({ cross: false })]);
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/accuracy\s+1\.0000/);
    expect(JSON.parse(out.at(-1)!)).toMatchObject({ task: 'emote', n: 2, accuracy: 1, recall_at_1: 1, candidates: 22 });
  });

  it('runs the baselines', async () => {
    const ir = await run(['--task', 'dialogue', '--data', dialogue, '--baseline', 'ir']);
    expect(JSON.parse(ir.out.at(-1)!)).toMatchObject({ task: 'dialogue', n: 3, recall_at_1: 1, baseline: 'ir' });
    const random = await run(['--task', 'dialogue', '--data', dialogue, '--baseline', 'random', '--seed', '4']);
    const j = JSON.parse(random.out.at(-1)!);
    expect(j.baseline).toBe('random');
    expect(j.n).toBe(3);
  });

  it('fails with a clear message on bad input, never a stack dump', async () => {
    const bad = join(data, 'bad.txt');
    writeFileSync(bad, 'text:a\tlabels:b\ngarbage line\n');
    const r1 = await run(['--task', 'dialogue', '--data', bad, '--baseline', 'ir']);
    expect(r1.code).toBe(1);
    expect(r1.err.join('\n')).toBe(`lightmud eval: ${bad}:2: field "garbage line" is not key:value (fields are tab-separated key:value pairs)`);
    const r2 = await run(['--task', 'dialogue', '--data', dialogue, '--model', join(data, 'no-model')]);
    expect(r2.code).toBe(1);
    expect(r2.err.join('\n')).toMatch(/no-model: model directory not found/);
    const r3 = await run(['--task', 'talk', '--data', dialogue]);
    expect(r3.code).toBe(2);
    expect(r3.err.join('\n')).toMatch(/--task must be one of dialogue, action, emote/);
    const r4 = await run(['--task', 'action', '--data', emote, '--baseline', 'ir']);
    expect(r4.code).toBe(1);
    expect(r4.err.join('\n')).toMatch(/line 1: no label_candidates: to rank \(needed for the action task\)/);
    const r5 = await run(['--task', 'dialogue', '--data', join(data, 'missing.txt'), '--baseline', 'ir']);
    expect(r5.code).toBe(1);
    expect(r5.err.join('\n')).toMatch(/no file .*missing\.txt\.\n.*`lightmud corpus export` writes/);
    expect([r1, r2, r3, r4, r5].every((r) => !r.err.join('\n').includes('    at '))).toBe(true);
    expect(evalCommand.usage).toMatch(/--baseline ir\|random/);
  });
});
