/**
 * A short training run on generated episodes of the little world: the loss goes down, the same seed
 * gives the same model, and the exported ONNX models compute the training-time forward passes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { EMOTES, execute, Rng, validActions } from '../../server/engine/index.js';
import type { Episode } from '../../server/episodes/episode.js';
import { stageEpisode } from '../../server/episodes/stage.js';
import { DEFAULT_TRAIN, train, type TrainOptions } from '../../models/training/train.js';
import { CLS_ID, SEP_ID } from '../../models/tokenizer/wordpiece.js';
import { LITTLE_WORLD, littleWorld } from '../fixtures/little-world.js';

/** Episodes whose words predict their actions: "I think I will <action>." then the action. */
function generatedEpisodes(n: number, seed: number): Episode[] {
  const rng = new Rng(seed);
  const world = littleWorld();
  const eps: Episode[] = [];
  for (let i = 0; i < n; i++) {
    const pair = rng.pick([['gardener', 'orc'], ['orc', 'kitty'], ['kitty', 'gardener']]);
    const room = rng.pick(['garden', 'shed', 'road']);
    const w = stageEpisode(world, room, pair);
    const turns: Episode['turns'] = [];
    for (let t = 0; t < 8; t++) {
      const speaker = pair[t % 2]!;
      const options = validActions(w, speaker);
      if (options.length && rng.next() < 0.6) {
        const action = rng.pick(options);
        turns.push({ speaker, say: `I think I will ${action} now, number ${i}-${t}.`, action });
        execute(w, speaker, action);
      } else {
        const emote = rng.pick(EMOTES);
        turns.push({ speaker, say: `This makes me want to ${emote}, friend ${i}-${t}.`, emote });
      }
    }
    eps.push({ id: `gen-${i}`, room, characters: pair, turns, source: 'generated' });
  }
  return eps;
}

function setup(): { data: string; world: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-train-'));
  const data = join(dir, 'episodes');
  mkdirSync(data);
  writeFileSync(join(data, 'gen.jsonl'), generatedEpisodes(40, 3).map((e) => JSON.stringify(e)).join('\n') + '\n');
  writeFileSync(join(data, 'splits.json'), JSON.stringify({ unseen_categories: ['Trail'], valid_percent: 15, test_seen_percent: 10 }));
  const world = join(dir, 'world.json');
  writeFileSync(world, JSON.stringify(LITTLE_WORLD));
  return { data, world };
}

const quiet = { log: () => {}, progress: () => {} };

describe('training', () => {
  const { data, world } = setup();
  const base = (out: string, seed = 1): TrainOptions => ({ ...DEFAULT_TRAIN, ...quiet, data, world, out, seed, pretrained: false, vocabSize: 2000, outDim: 32, biEpochs: 4, crossEpochs: 2, float16: false });

  it('lowers the loss, writes a model directory, and exports models that match the training forward pass', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lightmud-model-'));
    const { report, bi, cross, tokenizer } = await train(base(out));
    const biLoss = report.epochs.filter((e) => e.model === 'bi').map((e) => e.loss);
    expect(biLoss.at(-1)!).toBeLessThan(biLoss[0]! * 0.9);
    const crossLoss = report.epochs.filter((e) => e.model === 'cross').map((e) => e.loss);
    expect(crossLoss.at(-1)!).toBeLessThan(crossLoss[0]!);
    for (const f of ['tokenizer.json', 'tokenizer_config.json', 'onnx/bi_encoder.onnx', 'onnx/cross_encoder.onnx', 'lightmud.json', 'utterances.txt', 'training.json']) expect(existsSync(join(out, f)), f).toBe(true);

    const texts = ['_task_speech\n_setting_name Walled Garden, Farm\n_partner_say give me the apple', 'give apple to orc', 'wave'];
    const biSession = await ort.InferenceSession.create(join(out, 'onnx/bi_encoder.onnx'));
    for (const t of texts) {
      const ids = [CLS_ID, ...tokenizer.encode(t), SEP_ID];
      const r = await biSession.run({ input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]), attention_mask: new ort.Tensor('int64', BigInt64Array.from(ids.map(() => 1n)), [1, ids.length]) });
      const got = r['sentence_embedding']!.data as Float32Array;
      const want = bi.forward(ids).z;
      for (let k = 0; k < want.length; k++) expect(got[k]!).toBeCloseTo(want[k]!, 4);
    }
    const crossSession = await ort.InferenceSession.create(join(out, 'onnx/cross_encoder.onnx'));
    const q = tokenizer.encode(texts[0]!);
    for (const c of ['give apple to orc', 'hug kitty']) {
      const d = tokenizer.encode(c);
      const ids = [CLS_ID, ...q, SEP_ID, ...d, SEP_ID];
      const types = ids.map((_, i) => (i < q.length + 2 ? 0n : 1n));
      const r = await crossSession.run({
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
        attention_mask: new ort.Tensor('int64', BigInt64Array.from(ids.map(() => 1n)), [1, ids.length]),
        token_type_ids: new ort.Tensor('int64', BigInt64Array.from(types), [1, ids.length]),
      });
      expect((r['logits']!.data as Float32Array)[0]!).toBeCloseTo(cross.forward(q.filter((t) => t > 4), d.filter((t) => t > 4)).score, 3);
    }
  }, 120_000);

  it('is deterministic for a seed', async () => {
    const a = mkdtempSync(join(tmpdir(), 'lightmud-model-a-'));
    const b = mkdtempSync(join(tmpdir(), 'lightmud-model-b-'));
    const fast = (out: string) => ({ ...base(out), biEpochs: 1, crossEpochs: 1 });
    await train(fast(a));
    await train(fast(b));
    for (const f of ['onnx/bi_encoder.onnx', 'onnx/cross_encoder.onnx', 'tokenizer.json']) expect(readFileSync(join(a, f)).equals(readFileSync(join(b, f))), f).toBe(true);
  }, 120_000);
});
