import { existsSync } from 'node:fs';
import type { Command } from '../command.js';
import { intOption, parseOptions, UsageError } from '../command.js';
import { accumulate, readParlaiFile, ParlaiFormatError, type EvalTask } from '../../../models/eval/parlai.js';
import { evaluate } from '../../../models/eval/evaluate.js';
import { IrRanker, RandomRanker } from '../../../models/eval/baselines.js';
import { ModelError } from '../../../models/runtime/errors.js';
import { ModelRanker, type Ranker } from '../../../models/runtime/ranker.js';
import { Hybrid, HybridRanker } from '../../../models/runtime/hybrid.js';
import { staleExport } from '../../episodes/export-source.js';
import { DEFAULT_CASES, EngineAdapter, readCases, runCases } from '../../api/state-updates.js';

export const DEFAULT_MODEL = 'models/default';
const TASKS: EvalTask[] = ['dialogue', 'action', 'emote'];

/** Where ParlAI files come from, said whenever they are missing. */
export const DATA_HINT = [
  'ParlAI LIGHT files come from this project\'s written corpus: `lightmud corpus export` writes',
  'world-data/episodes/parlai/{train,valid,test_seen,test_unseen}.{dialogue,action,emote}.txt',
  '(e.g. --task dialogue --data world-data/episodes/parlai/valid.dialogue.txt); LIGHT\'s own data, if you have it, reads the same.',
].join('\n');

function fixed(v: number): string {
  return v.toFixed(4);
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'evaluate a ranking model or a baseline on LIGHT data (ParlAI format): Recall@1, MRR; or state updates (--task state-updates)',
  usage: [
    'usage: lightmud eval --task dialogue|action|emote --data FILE [--model DIR | --baseline ir|random] [--rerank K]',
    '       lightmud eval --task state-updates [--data FILE] [--adapter engine]',
    '',
    'state-updates: runs each state-update case (start state, calls, expected end state or refusal) through an',
    `adapter (engine: this game engine) and prints the failures, the pass rate by action and one JSON line.`,
    `Cases: ${DEFAULT_CASES.replace(process.cwd() + '/', '')} (see server/api/state-updates.ts).`,
    '',
    'Ranks each example\'s label candidates and scores the gold label. Prints Recall@1 (Recall@1/20 for',
    'LIGHT dialogue), MRR, accuracy for action and emote, and n; the last line is one JSON object.',
    '',
    '  --task T        dialogue, action or emote',
    '  --data FILE     ParlAI text format: tab-separated text:, labels:, label_candidates:, episode_done:',
    '                  (emote lines without candidates are ranked among the 22 emotes)',
    `  --model DIR     model directory (default: ${DEFAULT_MODEL}); see models/README.md`,
    '  --baseline B    ir (TF-IDF weighted word overlap) or random, instead of a model',
    '  --rerank K      rerank the bi-encoder\'s top K with the cross-encoder',
    '  --limit N       only the first N examples',
    '  --seed N        seed of the random baseline (default 1)',
    '  --threads N     onnxruntime threads (default: one per core)',
    '  --no-hybrid     the bi-encoder alone, even when the model directory has hybrid.json',
    '  --idf-from FILE IR baseline: document frequencies from FILE (e.g. the training split) instead of the data scored',
  ].join('\n'),
  async run(args) {
    const { opts, rest } = parseOptions(args, {
      task: 'string', data: 'string', adapter: 'string', model: 'string', baseline: 'string', rerank: 'string', limit: 'string', seed: 'string', threads: 'string', 'idf-from': 'string', 'no-hybrid': 'boolean',
    });
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    if (opts.task === 'state-updates') return stateUpdates(opts.data, opts.adapter);
    if (opts.adapter) throw new UsageError('--adapter is for --task state-updates');
    const task = opts.task as EvalTask | undefined;
    if (!task && !opts.data) throw new UsageError(`give --task (${TASKS.join(', ')} or state-updates) and --data FILE.\n${DATA_HINT}`);
    if (!task || !TASKS.includes(task)) throw new UsageError(`--task must be one of ${TASKS.join(', ')}`);
    if (!opts.data) throw new UsageError(`--data FILE is required.\n${DATA_HINT}`);
    for (const file of [opts.data, opts['idf-from']]) {
      if (file !== undefined && !existsSync(file)) {
        console.error(`lightmud eval: no file ${file}.\n${DATA_HINT}`);
        return 1;
      }
    }
    // figures on an export of an older corpus are figures on the wrong data: say so (and go on)
    const stale = staleExport(opts.data);
    if (stale) console.error(`lightmud eval: warning: ${stale}`);
    if (opts.model && opts.baseline) throw new UsageError('give --model or --baseline, not both');
    if (opts.baseline && !['ir', 'random'].includes(opts.baseline)) throw new UsageError('--baseline must be ir or random');
    const rerank = intOption(opts.rerank, 'rerank', 0);
    if (rerank < 0) throw new UsageError('--rerank must be >= 0');
    if (rerank && opts.baseline) throw new UsageError('--rerank needs a model, not a baseline');
    const limit = opts.limit === undefined ? undefined : intOption(opts.limit, 'limit', 0);
    const seed = intOption(opts.seed, 'seed', 1);
    const threads = opts.threads === undefined ? undefined : intOption(opts.threads, 'threads', 0);

    let ranker: Ranker | undefined;
    try {
      const examples = accumulate(readParlaiFile(opts.data), task);
      let label: Record<string, string>;
      if (opts.baseline === 'random') {
        ranker = new RandomRanker(seed);
        label = { baseline: 'random' };
      } else if (opts.baseline === 'ir') {
        const docs = new Set<string>();
        // IDF from another file (the training split: never fitted on what is scored), else from this one
        const source = opts['idf-from'] ? accumulate(readParlaiFile(opts['idf-from']), 'dialogue') : examples;
        for (const ex of source) {
          docs.add(ex.context);
          if (!opts['idf-from']) for (const c of ex.candidates) docs.add(c);
          for (const l of ex.labels) docs.add(l);
        }
        ranker = new IrRanker().fit(docs);
        label = { baseline: opts['idf-from'] ? `ir (idf from ${opts['idf-from']})` : 'ir' };
      } else {
        const dir = opts.model ?? DEFAULT_MODEL;
        ranker = await ModelRanker.load(dir, { threads, crossEncoder: rerank > 0 });
        const hybrid = opts['no-hybrid'] || rerank ? undefined : Hybrid.read(dir);
        if (hybrid) ranker = new HybridRanker(ranker, hybrid);
        label = { model: hybrid ? `${dir} (hybrid)` : dir };
      }
      const result = await evaluate(examples, ranker, { task, rerank: rerank || undefined, limit });
      const k = Math.round(result.candidates);
      const ci = wilson(result.recall_at_1, result.n);
      const uniform = result.candidates === k;
      const lines = [
        `task ${task}, ${opts.data}, ${label.model ? `model ${label.model}${rerank ? `, cross-encoder rerank of the top ${rerank}` : ''}` : `baseline ${label.baseline}`}`,
        `${'n'.padEnd(15)}${result.n}`,
        `${'candidates'.padEnd(15)}${uniform ? k : `${result.candidates.toFixed(1)} on average`}`,
        `${(uniform ? `Recall@1/${k}` : 'Recall@1').padEnd(15)}${fixed(result.recall_at_1)}`,
        `${'95% interval'.padEnd(15)}${ci.map(fixed).join(' - ')}`,
        `${'MRR'.padEnd(15)}${fixed(result.mrr)}`,
      ];
      if (task !== 'dialogue') lines.push(`${'accuracy'.padEnd(15)}${fixed(result.recall_at_1)}`);
      if (result.gold_added) lines.push(`note: ${result.gold_added} example(s) did not list their gold label among the candidates; it was added`);
      for (const l of lines) console.log(l);
      const json: Record<string, string | number | number[]> = {
        task,
        n: result.n,
        recall_at_1: round(result.recall_at_1),
        recall_at_1_ci95: ci.map(round),
        mrr: round(result.mrr),
        ...(task !== 'dialogue' ? { accuracy: round(result.recall_at_1) } : {}),
        candidates: round(result.candidates),
        ...label,
        ...(rerank ? { rerank } : {}),
      };
      console.log(JSON.stringify(json));
      return 0;
    } catch (err) {
      if (err instanceof ModelError || err instanceof ParlaiFormatError) {
        console.error(`lightmud eval: ${err.message}`);
        return 1;
      }
      throw err;
    } finally {
      if (ranker instanceof ModelRanker || ranker instanceof HybridRanker) await ranker.release();
    }
  },
};

async function stateUpdates(data: string | undefined, adapterName = 'engine'): Promise<number> {
  if (adapterName !== 'engine') throw new UsageError(`unknown --adapter "${adapterName}" (built in: engine)`);
  const file = readCases(data ?? DEFAULT_CASES);
  const results = await runCases(new EngineAdapter(), file);
  const byAction = new Map<string, { n: number; passed: number }>();
  for (const r of results) {
    const a = byAction.get(r.action) ?? { n: 0, passed: 0 };
    a.n++;
    if (r.pass) a.passed++;
    byAction.set(r.action, a);
    if (!r.pass) console.log(`FAIL ${r.id}: ${r.problems.join('; ')}`);
  }
  const passed = results.filter((r) => r.pass).length;
  console.log(`task state-updates, ${data ?? DEFAULT_CASES}, adapter engine`);
  for (const [a, v] of byAction) console.log(`${a.padEnd(15)}${v.passed}/${v.n}`);
  console.log(`${'passed'.padEnd(15)}${passed}/${results.length}`);
  console.log(JSON.stringify({ task: 'state-updates', adapter: adapterName, cases: results.length, passed, accuracy: round(passed / (results.length || 1)), failed: results.filter((r) => !r.pass).map((r) => r.id) }));
  return passed === results.length ? 0 : 1;
}

/** Wilson's 95% interval of a proportion p measured on n examples. */
export function wilson(p: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const z = 1.96;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

function round(v: number): number {
  return Math.round(v * 10000) / 10000;
}
