/** The exported ONNX models compute the training-time forward passes (real onnxruntime sessions). */
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { Rng } from '../../server/engine/rng.js';
import { BagEncoder } from '../../models/training/bag-encoder.js';
import { KernelRanker } from '../../models/training/kernel-ranker.js';
import { bagEncoderGraph, kernelRankerGraph, roundToHalf } from '../../models/training/export.js';
import { CLS_ID, SEP_ID } from '../../models/tokenizer/wordpiece.js';

const i64 = (rows: number[][], T: number) => new ort.Tensor('int64', BigInt64Array.from(rows.flatMap((r) => [...r, ...Array(T - r.length).fill(0)]).map(BigInt)), [rows.length, T]);

describe('ONNX export matches training', () => {
  for (const float16 of [false, true]) {
    it(`bi-encoder${float16 ? ' (float16 tables)' : ''}`, async () => {
      const rng = new Rng(3);
      const enc = new BagEncoder({ vocab: 40, dim: 8, out: 6 }, {}, rng);
      for (let i = 0; i < 40; i++) enc.u.value[i] = rng.next() * 2 - 1;
      for (let i = 0; i < enc.p.value.length; i++) enc.p.value[i] = rng.next() * 2 - 1;
      if (float16) roundToHalf(enc.E.value);
      const session = await ort.InferenceSession.create(bagEncoderGraph(enc, { float16 }).toModelBytes());
      const seqs = [[CLS_ID, 7, 8, 9, SEP_ID], [CLS_ID, 12, SEP_ID], [CLS_ID, 20, 21, 22, 23, 24, 25, SEP_ID], [CLS_ID, ...Array.from({ length: 90 }, (_, i) => 5 + (i % 35)), SEP_ID]];
      const T = 92;
      const out = await session.run({ input_ids: i64(seqs, T), attention_mask: i64(seqs.map((s) => s.map(() => 1)), T) });
      const got = out['sentence_embedding']!.data as Float32Array;
      seqs.forEach((s, b) => {
        const z = enc.forward(s).z;
        for (let k = 0; k < 6; k++) expect(got[b * 6 + k]!).toBeCloseTo(z[k]!, 5);
      });
    });

    it(`cross-encoder${float16 ? ' (float16 tables)' : ''}`, async () => {
      const rng = new Rng(4);
      const vocab = 40;
      const dim = 8;
      const model = new KernelRanker(vocab, dim, new Float32Array(vocab * dim).map(() => rng.next() - 0.5));
      for (let i = 0; i < vocab; i++) model.v.value[i] = rng.next() * 2 - 1;
      for (let k = 0; k < model.K; k++) { model.w.value[k] = rng.next() - 0.5; model.w2.value[k] = rng.next() - 0.5; }
      for (let k = 0; k < model.r.value.length; k++) model.r.value[k] = rng.next() * 2 - 1;
      model.b.value[0] = 0.3;
      const bag = new BagEncoder({ vocab, dim, out: 6 }, {}, rng);
      for (let i = 0; i < vocab; i++) bag.u.value[i] = rng.next() * 2 - 1;
      for (let i = 0; i < bag.p.value.length; i++) bag.p.value[i] = rng.next() * 2 - 1;
      if (float16) roundToHalf(bag.E.value);
      model.bag = bag;
      model.wb.value[0] = 3;
      const session = await ort.InferenceSession.create(kernelRankerGraph(model, { float16 }).toModelBytes());
      const ctx = [7, 8, 9, 10, 11, 9, ...Array.from({ length: 70 }, (_, i) => 5 + (i % 35))];
      const cands = [[9, 12], [13, 14, 15], [11]];
      const rows = cands.map((d) => [CLS_ID, ...ctx, SEP_ID, ...d, SEP_ID]);
      const types = cands.map((d) => [...Array(ctx.length + 2).fill(0), ...Array(d.length + 1).fill(1)]);
      const T = Math.max(...rows.map((r) => r.length));
      const out = await session.run({ input_ids: i64(rows, T), attention_mask: i64(rows.map((r) => r.map(() => 1)), T), token_type_ids: i64(types, T) });
      const got = out['logits']!.data as Float32Array;
      cands.forEach((d, b) => expect(got[b]!).toBeCloseTo(model.forward(ctx, d).score, float16 ? 2 : 4));
    });
  }
});
