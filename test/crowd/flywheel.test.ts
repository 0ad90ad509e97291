/**
 * The data flywheel: episodes collected in a crowd task, approved on review and exported with
 * `lightmud crowd export`, are read by `lightmud train --extra` and change what is trained on: the
 * training examples, the vocabulary and the utterances the model answers from. The smallest settings
 * the train command has (no GloVe, one epoch each, a small vocabulary, no hybrid fit) on a corpus of
 * a few generated episodes of the little world, so it runs in seconds.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { crowdCommand } from '../../server/cli/commands/crowd.js';
import { trainCommand } from '../../server/cli/commands/train.js';
import { EMOTES, Rng } from '../../server/engine/index.js';
import type { Episode } from '../../server/episodes/episode.js';
import { makeAdmin } from '../server/helpers.js';
import { CrowdClient, startCrowdServer } from './helpers.js';

const CROWD_LINES = ['The lanterns of Quillmarsh glow at dusk.', 'Have you tasted zephyrberry cordial yet?'];

/** A small written corpus: talk and emotes only, words of its own, none of the crowd's. */
function corpus(n: number): Episode[] {
  const rng = new Rng(5);
  const topics = ['weather', 'harvest', 'market', 'river', 'road', 'tools', 'supper', 'rain'];
  return Array.from({ length: n }, (_, i) => {
    const pair = rng.pick([['gardener', 'orc'], ['orc', 'kitty'], ['kitty', 'gardener']]);
    const turns = Array.from({ length: 6 }, (_, t) => ({ speaker: pair[t % 2]!, say: `Let us talk about the ${rng.pick(topics)} today, friend ${i} ${t}.`, ...(rng.next() < 0.5 ? { emote: rng.pick(EMOTES) } : {}) }));
    return { id: `c-${i}`, room: rng.pick(['garden', 'shed', 'road']), characters: pair, turns, source: 'written' };
  });
}

function capture(): string[] {
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  return out;
}

afterEach(() => vi.restoreAllMocks());

describe('the data flywheel', () => {
  it('trains on a crowd task\'s approved export: more examples, its words in the vocabulary, its lines among the utterances', async () => {
    const server = await startCrowdServer({ modelFallbackSeconds: 0, turns: 4 });
    try {
      // Two episodes, each a worker with the scripted partner; the first approved, the second rejected.
      for (const w of ['worker-1', 'worker-2']) {
        const c = await CrowdClient.join(server, 'garden-chat', w);
        await c.next('paired');
        await c.turn(w === 'worker-1' ? CROWD_LINES[0]! : 'Rejected lines like xylograph never train.');
        await c.turn(w === 'worker-1' ? CROWD_LINES[1]! : 'Another rejected line about xylographs.');
        await c.next('end');
        c.send({ type: 'form', rating: 5 });
        await c.next('done');
        await c.close();
      }
      await makeAdmin(server, 'boss', 'secret-1');
      const store = server.crowd!.store;
      for (const u of store.units('garden-chat')) store.setUnitStatus(u.id, u.worker === store.pseudonym('worker-1') ? 'approved' : 'rejected');

      const out = capture();
      const exported = join(server.dir, 'crowd-export');
      expect(await crowdCommand.run(['export', 'garden-chat', '--out', exported, '--db', server.db])).toBe(0);
      expect(out.at(-1)).toMatch(/exported 1 approved episodes \(4 turns\)/);

      const data = join(server.dir, 'episodes');
      mkdirSync(data);
      writeFileSync(join(data, 'corpus.jsonl'), corpus(16).map((e) => JSON.stringify(e)).join('\n') + '\n');
      writeFileSync(join(data, 'splits.json'), JSON.stringify({ unseen_categories: ['Trail'], valid_percent: 15, test_seen_percent: 10 }));
      const run = async (name: string, extra: string[]) => {
        const model = join(server.dir, name);
        const args = ['--data', data, '--world', server.world, '--out', model, '--no-pretrained', '--epochs', '1', '--cross-epochs', '1', '--vocab', '2000', '--no-hybrid', '--float32'];
        const from = out.length;
        expect(await trainCommand.run(extra.length ? [...args, '--extra', extra.join(',')] : args)).toBe(0);
        const report = JSON.parse(readFileSync(join(model, 'training.json'), 'utf8')) as { examples: { train: { speech: number; action: number; emote: number } } };
        return {
          log: out.slice(from),
          train: report.examples.train,
          vocab: new Set(Object.keys((JSON.parse(readFileSync(join(model, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab)),
          utterances: readFileSync(join(model, 'utterances.txt'), 'utf8').split('\n'),
        };
      };
      const before = await run('model-before', []);
      const after = await run('model-after', [join(exported, 'crowd.dialogue.txt'), `${join(exported, 'crowd.emote.txt')}:emote`]);

      // The export's examples: one dialogue example a turn (4), one emote example a turn with an emote (the script's wave).
      expect(after.log).toContain(`extra: 4 dialogue examples from ${join(exported, 'crowd.dialogue.txt')}`);
      expect(after.log).toContain(`extra: 1 emote examples from ${join(exported, 'crowd.emote.txt')}`);
      expect(after.train).toEqual({ speech: before.train.speech + 4, action: before.train.action, emote: before.train.emote + 1 });
      for (const line of CROWD_LINES) {
        expect(before.utterances).not.toContain(line);
        expect(after.utterances).toContain(line);
      }
      for (const word of ['quillmarsh', 'zephyrberry']) {
        expect([...before.vocab].some((t) => t.startsWith(word))).toBe(false);
        expect(after.vocab.has(word)).toBe(true);
      }
      // The rejected episode is not in the export, so not in training.
      expect(after.utterances.some((u) => /xylograph/.test(u))).toBe(false);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
