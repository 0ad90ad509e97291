import type { Command } from '../command.js';
import { parseOptions, UsageError } from '../command.js';
import { fitHybrid } from '../../../models/training/fit-hybrid.js';
import { ModelRanker } from '../../../models/runtime/ranker.js';
import { DEFAULT_CORPUS } from './corpus.js';
import { join } from 'node:path';

export const fitHybridCommand: Command = {
  name: 'fit-hybrid',
  summary: 'fit the hybrid ranker (bi-encoder + word-overlap and conversation features) into a model directory',
  usage: [
    'usage: lightmud fit-hybrid [--model DIR] [--parlai DIR]',
    '',
    'Writes DIR/hybrid.json: document frequencies from the training split, and per task (dialogue, action,',
    'emote) the weights of a linear model over the bi-encoder score and exact-word features, fitted on the',
    'valid split with the L2 strength chosen by 5-fold cross-fitting. Reads the ParlAI files that',
    '`lightmud corpus export` writes. `lightmud train` runs it at the end.',
    '',
    '  --model DIR     model directory (default: models/default)',
    '  --parlai DIR    ParlAI files (default: world-data/episodes/parlai)',
  ].join('\n'),
  async run(args) {
    const { opts, rest } = parseOptions(args, { model: 'string', parlai: 'string' });
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    const modelDir = opts.model ?? 'models/default';
    const ranker = await ModelRanker.load(modelDir, { crossEncoder: false, threads: 1 });
    try {
      await fitHybrid({ parlai: opts.parlai ?? join(DEFAULT_CORPUS, 'parlai'), modelDir, ranker, log: (l) => console.log(l) });
    } finally {
      await ranker.release();
    }
    return 0;
  },
};
