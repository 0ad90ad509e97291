/** The ranking runtime through its real path: model directory -> AutoTokenizer -> onnxruntime -> rank(). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DotIndex, EMOTES, ModelError, ModelRanker, Tokenizer, argsortDesc, dotScores, inferenceThreadId, normalizeRows, quantizeRows, kernelProbe, readModelDir, selectLines,
} from '../../models/runtime/index.js';
import { biEncoderGraph } from '../../models/onnx/builders.js';
import { mulberry32 } from '../../models/eval/baselines.js';
import { writeModelDir } from '../../models/runtime/write-model-dir.js';
import { DEFAULT_CONFIG, VOCAB, biEncoderBytes, cleanupTempDirs, makeTinyModel, oneHotEmbeddings, tempDir } from './tiny-model.js';

let dir: string;
let ranker: ModelRanker;

beforeAll(async () => {
  dir = makeTinyModel();
  ranker = await ModelRanker.load(dir);
});

afterAll(async () => {
  await ranker.release();
  cleanupTempDirs();
});

const texts = (ranked: { text: string }[]) => ranked.map((r) => r.text);

describe('tokenizer loading', () => {
  it('loads tokenizer.json with AutoTokenizer from a local directory: lowercasing, punctuation, unknown words', async () => {
    const tok = await Tokenizer.load(dir);
    expect(tok.tokens('Hello, the SWORD!')).toEqual(['hello', ',', 'the', 'sword', '!']);
    expect(tok.tokens('_task_speech xyzzy')).toEqual(['_', 'task', '_', 'speech', '[UNK]']);
    expect(tok.lineSeparable).toBe(true); // a newline is whitespace to a BERT tokenizer: contexts are tokenised line by line
    const context = '_task_speech\n_self_name king\n_partner_say sword sword\n_partner_say gold';
    expect(tok.fit(context, 100)).toEqual(tok.tokens(context));
    expect(tok.fit(context, 14)).toEqual(tok.tokens('_task_speech\n_self_name king\n_partner_say gold'));
    expect(tok.fit(context, 13)).toEqual(tok.tokens('_task_speech\n_self_name king'));
    const id = (t: string) => VOCAB.indexOf(t);
    const single = tok.encode(['hello sword', 'ale'], 64);
    expect(single.batch).toBe(2);
    expect(single.length).toBe(4);
    expect([...single.inputIds].map(Number)).toEqual([id('[CLS]'), id('hello'), id('sword'), id('[SEP]'), id('[CLS]'), id('ale'), id('[SEP]'), id('[PAD]')]);
    expect([...single.attentionMask].map(Number)).toEqual([1, 1, 1, 1, 1, 1, 1, 0]);
  });

  it('encodes (context, candidate) pairs with token types 0 then 1, keeping the candidate when the context is cut', async () => {
    const tok = ranker.tokenizer;
    const pair = tok.encodePairs('hello sword', ['ale'], 64);
    const id = (t: string) => VOCAB.indexOf(t);
    expect([...pair.inputIds].map(Number)).toEqual([id('[CLS]'), id('hello'), id('sword'), id('[SEP]'), id('ale'), id('[SEP]')]);
    expect([...pair.tokenTypeIds].map(Number)).toEqual([0, 0, 0, 0, 1, 1]);
    // A long LIGHT context: header kept, oldest history dropped, candidate intact.
    const context = ['_task_speech', '_self_name king', '_partner_say sword sword sword sword', '_partner_say bread', '_partner_say gold'].join('\n');
    const cut = tok.encodePairs(context, ['dragon'], 22);
    const ids = [...cut.inputIds].map(Number);
    expect(ids.length).toBeLessThanOrEqual(22);
    expect(ids).toContain(id('king'));
    expect(ids).toContain(id('gold'));
    expect(ids).not.toContain(id('sword'));
    expect(ids.slice(-2)).toEqual([id('dragon'), id('[SEP]')]);
  });
});

describe('bi-encoder', () => {
  it('gives L2-normalised embeddings equal to the normalised bag of content words', async () => {
    const e = await ranker.biEncoder.encode(['the sword', 'sword shield', 'xyzzy']);
    const dim = ranker.biEncoder.dim;
    expect(dim).toBe(oneHotEmbeddings().hidden);
    const row = (i: number) => [...e.subarray(i * dim, (i + 1) * dim)];
    const norm = (v: number[]) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
    expect(norm(row(0))).toBeCloseTo(1, 5);
    expect(norm(row(1))).toBeCloseTo(1, 5);
    expect(norm(row(2))).toBe(0); // nothing known: a zero vector, not NaN
    expect(dotScores(e.subarray(0, dim), e.subarray(dim, 2 * dim), dim)[0]).toBeCloseTo(Math.SQRT1_2, 5);
  });

  it('mean-pools last_hidden_state exactly as the graph pools sentence_embedding (sentence-transformers contract, no lightmud.json)', async () => {
    const tokenDir = makeTinyModel({ bi: { tokenStates: true, tokenTypeIds: true }, cross: false, config: null });
    renameSync(join(tokenDir, 'onnx', 'bi_encoder.onnx'), join(tokenDir, 'onnx', 'model.onnx')); // the export's own name
    const cfg = readModelDir(tokenDir);
    expect(cfg.configPath).toBeUndefined();
    expect(cfg.biEncoder.file).toBe('onnx/model.onnx');
    const other = await ModelRanker.load(tokenDir);
    expect(other.biEncoder.output).toBe('last_hidden_state');
    expect(other.biEncoder.pooling).toBe('mean');
    expect(other.crossEncoder).toBeUndefined();
    const batch = ['give me your sword', 'hello', 'bread ale ale king', 'the dragon hit the castle door'];
    const a = await ranker.biEncoder.encode(batch);
    const b = await other.biEncoder.encode(batch);
    expect(b.length).toBe(a.length);
    for (let i = 0; i < a.length; i++) expect(b[i]!).toBeCloseTo(a[i]!, 5);
    await other.release();
  });

  it('uses cls pooling when configured (the first token state)', async () => {
    const clsDir = makeTinyModel({ bi: { tokenStates: true }, cross: false, config: { bi_encoder: { output: 'last_hidden_state', pooling: 'cls' } } });
    const r = await ModelRanker.load(clsDir);
    const e = await r.biEncoder.encode(['sword']);
    expect([...e].every((v) => v === 0)).toBe(true); // [CLS] embeds to zero in the tiny model
    await r.release();
  });
});

describe('rank()', () => {
  it('ranks dialogue candidates by shared content words', async () => {
    const context = '_task_speech\n_setting_name castle\n_partner_say give me your sword';
    const ranked = await ranker.rank(context, ['i want bread', 'here is my sword', 'hello']);
    expect(ranked[0]).toMatchObject({ text: 'here is my sword', index: 1 });
    expect(ranked[0]!.score).toBeCloseTo(1 / Math.sqrt(3), 5); // cos({castle, give, sword}, {sword})
    expect(ranked.map((r) => r.index).sort()).toEqual([0, 1, 2]);
  });

  it('ranks actions among the candidates given (the engine\'s valid actions)', async () => {
    const context = '_task_action\n_object_desc bread : a loaf\n_partner_say you look hungry, eat';
    const ranked = await ranker.rank(context, ['get sword', 'hug queen', 'eat bread', 'hit dragon']);
    expect(ranked[0]!.text).toBe('eat bread');
  });

  it('ranks the 22 emotes', async () => {
    expect(EMOTES).toHaveLength(22);
    const ranked = await ranker.rank('_task_emote\n_partner_say that joke was funny, laugh', EMOTES);
    expect(ranked).toHaveLength(22);
    expect(ranked[0]!.text).toBe('laugh');
    const sad = await ranker.rank('_task_emote\n_partner_say i am so sad, i cry', EMOTES);
    expect(sad[0]!.text).toBe('cry');
  });

  it('reranks the top k with the cross-encoder, which can reverse the bi-encoder', async () => {
    const context = '_partner_say sword shield gold';
    const candidates = ['sword', 'sword shield king queen dragon', 'bread'];
    const bi = await ranker.rank(context, candidates);
    expect(texts(bi)).toEqual(['sword', 'sword shield king queen dragon', 'bread']);
    const re = await ranker.rank(context, candidates, { rerank: 2 });
    expect(texts(re)).toEqual(['sword shield king queen dragon', 'sword', 'bread']);
    expect(re[0]!.crossScore).toBeCloseTo(2 * Math.log(2), 4);
    expect(re[1]!.crossScore).toBeCloseTo(Math.log(2), 4);
    expect(re[2]!.crossScore).toBeUndefined();
    expect(re[2]!.score).toBe(re[2]!.biScore);
  });

  it('retrieves from a pool, then reranks', async () => {
    const pool = await ranker.buildPool(['hello there', 'a sword for you', 'bread and ale', 'the king is dead', 'ale ale ale bread']);
    expect(pool.source.from).toBe('encoded');
    const top = await ranker.rank('_partner_say do you have a sword', pool, { topK: 2 });
    expect(top).toHaveLength(2);
    expect(top[0]).toMatchObject({ text: 'a sword for you', index: 1 });
    const re = await ranker.rank('_partner_say i want ale and bread', pool, { rerank: 3 });
    expect(re[0]!.text).toBe('ale ale ale bread');
    await pool.release();
  });

  it('asks for a cross-encoder when reranking without one', async () => {
    const noCross = await ModelRanker.load(makeTinyModel({ cross: false }));
    await expect(noCross.rank('sword', ['sword'], { rerank: 1 })).rejects.toThrow(/reranking needs onnx\/cross_encoder\.onnx/);
    await noCross.release();
  });
});

describe('top-K kernel', () => {
  for (const quantize of ['none', 'int8'] as const) {
    it(`matches brute force, batched, best first (${quantize === 'none' ? 'float32 Gemm' : 'int8 scan, exact rescoring'})`, async () => {
      const rng = mulberry32(5);
      const n = 3000, dim = 16;
      const m = normalizeRows(Float32Array.from({ length: n * dim }, () => rng() - 0.5), dim);
      const index = await DotIndex.create(m, dim, { quantize });
      expect(index.quantize).toBe(quantize);
      const q = normalizeRows(Float32Array.from({ length: 3 * dim }, () => rng() - 0.5), dim);
      const hits = await index.search(q, 10);
      expect(hits).toHaveLength(3);
      for (let b = 0; b < 3; b++) {
        const scores = dotScores(q.subarray(b * dim, (b + 1) * dim), m, dim);
        const want = argsortDesc(scores).slice(0, 10);
        expect(hits[b]!.map((h) => h.index)).toEqual(want);
        hits[b]!.forEach((h) => expect(h.score).toBeCloseTo(scores[h.index]!, 5));
      }
      expect((await index.search(q.subarray(0, dim), 10_000))[0]).toHaveLength(n); // k is capped at the pool size
      await index.release();
      const empty = await DotIndex.create(new Float32Array(0), dim, { quantize });
      expect(await empty.search(q.subarray(0, dim), 5)).toEqual([[]]);
    });
  }

  it('quantises rows symmetrically to 7 bits, transposed for MatMulInteger', () => {
    const { transposed, scales } = quantizeRows(Float32Array.of(0.5, -1, 0.25, 0, 0, 0), 3);
    expect([...scales]).toEqual([Math.fround(1 / 63), 1]);
    expect([...transposed]).toEqual([32, 0, -63, 0, 16, 0]); // [dim, rows]; |value| <= 63 so u8 x s8 pairs never overflow int16
  });

  it('this CPU\'s int8 kernel computes the worst case exactly (else the index scans float32)', async () => {
    expect(await kernelProbe()).toBe(true);
  });

  it('int8 answers are certified: a shortlist too small to be sure is searched again, and the result is the exact top k', async () => {
    const rng = mulberry32(11);
    const n = 4000, dim = 24;
    // many near-ties: rows close to one direction, so quantisation error can reorder them
    const m = normalizeRows(Float32Array.from({ length: n * dim }, (_, i) => (i % dim === 0 ? 3 : 0) + (rng() - 0.5) * 0.2), dim);
    const index = await DotIndex.create(m, dim, { quantize: 'int8', oversample: 1, minShortlist: 12 });
    const q = normalizeRows(Float32Array.from({ length: 4 * dim }, (_, i) => (i % dim === 0 ? 3 : 0) + (rng() - 0.5) * 0.2), dim);
    const hits = await index.search(q, 10);
    expect(index.retries).toBeGreaterThan(0); // the first shortlist of 12 could not be certified
    for (let b = 0; b < 4; b++) {
      const scores = dotScores(q.subarray(b * dim, (b + 1) * dim), m, dim);
      expect(hits[b]!.map((h) => h.index)).toEqual(argsortDesc(scores).slice(0, 10));
    }
    await index.release();
  });
});

describe('model directory errors name the file and the problem', () => {
  it('a missing tokenizer file', async () => {
    const d = makeTinyModel();
    rmSync(join(d, 'tokenizer.json'));
    await expect(ModelRanker.load(d)).rejects.toThrow(ModelError);
    await expect(ModelRanker.load(d)).rejects.toThrow(`${join(d, 'tokenizer.json')}: missing`);
  });

  it('a missing bi-encoder, and a missing file named by lightmud.json', async () => {
    const d = makeTinyModel({ config: null });
    rmSync(join(d, 'onnx', 'bi_encoder.onnx'));
    await expect(ModelRanker.load(d)).rejects.toThrow(/missing onnx\/bi_encoder\.onnx \(looked for onnx\/bi_encoder\.onnx, onnx\/model\.onnx/);
    const d2 = makeTinyModel();
    rmSync(join(d2, 'onnx', 'cross_encoder.onnx'));
    await expect(ModelRanker.load(d2)).rejects.toThrow(`${join(d2, 'onnx', 'cross_encoder.onnx')}: missing (named by`);
    await expect(ModelRanker.load(tempDir() + '/nowhere')).rejects.toThrow(/model directory not found/);
  });

  it('a model with the wrong input names', async () => {
    const d = tempDir();
    const { embeddings, hidden } = oneHotEmbeddings();
    const g = biEncoderGraph({ vocab: VOCAB.length, hidden, embeddings, dim: hidden, projection: new Float32Array(hidden * hidden) }, { names: { inputIds: 'ids', attentionMask: 'mask' } });
    writeModelDir(d, { vocab: VOCAB, biEncoder: g.toModelBytes() });
    const file = join(d, 'onnx', 'bi_encoder.onnx');
    await expect(ModelRanker.load(d)).rejects.toThrow(`${file}: unexpected input "ids" (its inputs: ids, mask;`);
    // ...which lightmud.json can map
    writeFileSync(join(d, 'lightmud.json'), JSON.stringify({ bi_encoder: { inputs: { input_ids: 'ids', attention_mask: 'mask' } } }));
    const ok = await ModelRanker.load(d);
    expect((await ok.rank('sword', ['ale'])).length).toBe(1);
    await ok.release();
    writeFileSync(join(d, 'lightmud.json'), JSON.stringify({ bi_encoder: { inputs: ['input_ids', 'attention_mask'] } }));
    await expect(ModelRanker.load(d)).rejects.toThrow(`${file}: has no input named "input_ids" for input_ids (its inputs: ids, mask`);
  });

  it('a wrong output name, a bad lightmud.json, and a file that is not ONNX', async () => {
    const d = makeTinyModel({ cross: false, config: { bi_encoder: { output: 'pooler_output' } } });
    await expect(ModelRanker.load(d)).rejects.toThrow(/has no output "pooler_output" \(its outputs: sentence_embedding\)/);
    writeFileSync(join(d, 'lightmud.json'), JSON.stringify({ bi_encoder: { pooling: 'max' } }));
    await expect(ModelRanker.load(d)).rejects.toThrow(`${join(d, 'lightmud.json')} bi_encoder.pooling: must be "none", "mean" or "cls", got "max"`);
    writeFileSync(join(d, 'lightmud.json'), '{ not json');
    await expect(ModelRanker.load(d)).rejects.toThrow(`${join(d, 'lightmud.json')}: `);
    writeFileSync(join(d, 'lightmud.json'), JSON.stringify({ bi_encoder: { pooling: 'none', output: 'sentence_embedding' } }));
    writeFileSync(join(d, 'onnx', 'bi_encoder.onnx'), 'this is not a model');
    await expect(ModelRanker.load(d)).rejects.toThrow(`${join(d, 'onnx', 'bi_encoder.onnx')}: cannot load the ONNX model`);
  });

  it('token states with pooling "none" are a clear error at encode time', async () => {
    const d = makeTinyModel({ bi: { tokenStates: true }, cross: false, config: { bi_encoder: { output: 'last_hidden_state', pooling: 'none' } } });
    const r = await ModelRanker.load(d);
    await expect(r.rank('sword', ['ale'])).rejects.toThrow(/output "last_hidden_state" has shape \[1, 3, \d+\], expected \[batch, dim\]/);
    await r.release();
  });
});

describe('LIGHT line selection', () => {
  it('keeps the header, drops oldest history first, then objects, then the newest history line', () => {
    const lines = ['_task_speech', '_setting_name a', '_self_persona p', '_object_desc o1 : x', '_object_desc o2 : x', '_partner_say h1', '_self_say h2', '_partner_say h3'];
    const one = () => 1;
    expect(selectLines(lines, one, 8)).toEqual(lines);
    expect(selectLines(lines, one, 6)).toEqual(['_task_speech', '_setting_name a', '_self_persona p', '_object_desc o1 : x', '_object_desc o2 : x', '_partner_say h3']);
    expect(selectLines(lines, one, 5)).toEqual(['_task_speech', '_setting_name a', '_self_persona p', '_object_desc o1 : x', '_partner_say h3']);
    expect(selectLines(lines, one, 3)).toEqual(['_task_speech', '_setting_name a', '_self_persona p']);
    expect(selectLines(lines, one, 1)).toEqual(['_task_speech', '_setting_name a', '_self_persona p']);
  });
});

it('the tiny model\'s lightmud.json is the documented shape', () => {
  const cfg = readModelDir(dir);
  expect(cfg.biEncoder.maxTokens).toBe(DEFAULT_CONFIG.bi_encoder.max_tokens);
  expect(cfg.crossEncoder?.file).toBe('onnx/cross_encoder.onnx');
  expect(existsSync(join(dir, 'tokenizer_config.json'))).toBe(true);
  expect(JSON.parse(readFileSync(join(dir, 'lightmud.json'), 'utf8')).format).toBe('lightmud-model');
  expect(biEncoderBytes().length).toBeGreaterThan(0);
});

describe('off the event loop', () => {
  it('runs sessions on the inference thread by default, and in process on request, with the same results', async () => {
    expect(await inferenceThreadId()).toBeGreaterThan(0); // the main thread is 0
    const local = await ModelRanker.load(dir, { inProcess: true });
    const context = '_partner_say sword shield gold';
    const candidates = ['sword', 'sword shield king queen dragon', 'bread'];
    const a = await ranker.rank(context, candidates, { rerank: 3 });
    const b = await local.rank(context, candidates, { rerank: 3 });
    expect(b).toEqual(a);
    const pool = await local.buildPool(['a sword for you', 'bread and ale']);
    expect((await local.rank('_partner_say sword', pool))[0]!.text).toBe('a sword for you');
    await pool.release();
    await local.release();
  });
});
