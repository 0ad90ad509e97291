/** The candidate pool's on-disk embedding cache: reused while model and pool are unchanged, rebuilt otherwise. */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelRanker, readEmbeddingCache, readUtterances } from '../../models/runtime/index.js';
import { cleanupTempDirs, makeTinyModel, tempDir } from './tiny-model.js';

afterAll(() => cleanupTempDirs());

const UTTERANCES = ['hello there', 'a sword for you', 'bread and ale', 'the king is dead', 'the dragon is in the forest'];

describe('pool embedding cache', () => {
  it('is written, reused, and rebuilt when the pool, the model or the file changes', async () => {
    const cacheDir = join(tempDir(), 'cache');
    const modelA = makeTinyModel({ scale: 1 });
    const a = await ModelRanker.load(modelA);

    const first = await a.buildPool(UTTERANCES, { cacheDir, keepEmbeddings: true });
    expect(first.source).toMatchObject({ from: 'encoded', reason: 'no cache file' });
    const file = join(cacheDir, 'pool.emb');
    expect(readFileSync(file).subarray(0, 8).toString()).toBe('LMEMB001');

    const second = await a.buildPool(UTTERANCES, { cacheDir, keepEmbeddings: true });
    expect(second.source.from).toBe('cache');
    expect([...second.embeddings!]).toEqual([...first.embeddings!]);
    const q = await a.rank('_partner_say sword', second);
    expect(q[0]!.text).toBe('a sword for you');

    // The pool changes: one utterance more.
    const grown = await a.buildPool([...UTTERANCES, 'gold for the queen'], { cacheDir });
    expect(grown.source).toMatchObject({ from: 'encoded', reason: 'pool changed' });
    expect((await a.rank('_partner_say queen', grown))[0]!.text).toBe('gold for the queen');
    expect((await a.buildPool([...UTTERANCES, 'gold for the queen'], { cacheDir })).source.from).toBe('cache');

    // The model changes (same architecture, different weights): cache invalid.
    const modelB = makeTinyModel({ scale: 3 });
    const b = await ModelRanker.load(modelB);
    expect(b.biEncoder.fingerprint).not.toBe(a.biEncoder.fingerprint);
    const rebuilt = await b.buildPool([...UTTERANCES, 'gold for the queen'], { cacheDir });
    expect(rebuilt.source).toMatchObject({ from: 'encoded', reason: 'model changed' });
    await expect(a.rank('sword', rebuilt)).rejects.toThrow(/this pool was encoded by another bi-encoder/);

    // Separate names keep separate files.
    const named = await b.buildPool(UTTERANCES, { cacheDir, name: 'episodes' });
    expect(named.source.path).toBe(join(cacheDir, 'episodes.emb'));

    // A damaged file is rebuilt, not trusted.
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 8));
    const damaged = await b.buildPool([...UTTERANCES, 'gold for the queen'], { cacheDir });
    expect(damaged.source).toMatchObject({ from: 'encoded', reason: 'truncated file' });
    writeFileSync(file, 'garbage');
    expect(readEmbeddingCache(file, { model: b.biEncoder.fingerprint, pool: 'x', n: 1 })).toEqual({ reason: 'not an embedding cache' });

    await a.release();
    await b.release();
  });

  it('the fingerprint also covers the tokenizer and the encoding settings', async () => {
    const d = makeTinyModel();
    const one = await ModelRanker.load(d);
    const cfg = JSON.parse(readFileSync(join(d, 'lightmud.json'), 'utf8'));
    cfg.bi_encoder.max_tokens = 32;
    writeFileSync(join(d, 'lightmud.json'), JSON.stringify(cfg));
    const two = await ModelRanker.load(d);
    expect(two.biEncoder.fingerprint).not.toBe(one.biEncoder.fingerprint);
    const tj = JSON.parse(readFileSync(join(d, 'tokenizer.json'), 'utf8'));
    tj.normalizer.lowercase = false;
    writeFileSync(join(d, 'tokenizer.json'), JSON.stringify(tj));
    const three = await ModelRanker.load(d);
    expect(three.biEncoder.fingerprint).not.toBe(two.biEncoder.fingerprint);
    await Promise.all([one.release(), two.release(), three.release()]);
  });
});

describe('pool utterances from files', () => {
  it('reads episode turns, text lines and ParlAI labels and candidates, in order, without duplicates', () => {
    const d = tempDir();
    mkdirSync(join(d, 'episodes'));
    writeFileSync(join(d, 'episodes', 'a.jsonl'), [
      JSON.stringify({ id: 'a1', turns: [{ speaker: 'x', say: 'Hello  there.' }, { speaker: 'y', emote: 'wave' }, { speaker: 'y', say: 'Well met.', action: 'get sword' }] }),
      '',
      JSON.stringify({ id: 'a2', turns: [{ speaker: 'x', say: 'Hello there.' }] }),
    ].join('\n'));
    writeFileSync(join(d, 'episodes', 'b.txt'), 'One more line\n\n  Well met. \n');
    writeFileSync(join(d, 'episodes', 'ignored.json'), '{}');
    writeFileSync(join(d, 'light.parlai'), 'text:_partner_say hi\tlabels:gold answer\tlabel_candidates:wrong one|gold answer\n');
    expect(readUtterances([join(d, 'episodes'), join(d, 'light.parlai')])).toEqual(['Hello there.', 'Well met.', 'One more line', 'gold answer', 'wrong one']);
    writeFileSync(join(d, 'bad.jsonl'), '{"turns": 3}');
    expect(() => readUtterances([join(d, 'bad.jsonl')])).toThrow(`${join(d, 'bad.jsonl')}:1: an episode needs a "turns" list`);
    expect(() => readUtterances([join(d, 'nope')])).toThrow(/nope: not found/);
  });

  it('reads the bundled episodes when present', () => {
    const episodes = new URL('../../world-data/episodes', import.meta.url).pathname;
    let utterances: string[] = [];
    try {
      utterances = readUtterances([episodes]);
    } catch {
      return; // no bundled episodes in this checkout
    }
    expect(utterances.length).toBeGreaterThan(0);
    expect(new Set(utterances).size).toBe(utterances.length);
  });
});
