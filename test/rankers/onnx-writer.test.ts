/** The hand-written ONNX writer: protobuf bytes, and models that onnxruntime loads and computes as a JS reference does. */
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { ProtoWriter } from '../../models/onnx/protobuf.js';
import { GraphBuilder, int, float, ints, floats, str } from '../../models/onnx/onnx.js';
import { biEncoderGraph, crossEncoderGraph, crossEncoderReference } from '../../models/onnx/builders.js';
import { mulberry32 } from '../../models/eval/baselines.js';

const bytes = (w: ProtoWriter): number[] => [...w.finish()];

function randomArray(n: number, rng: () => number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, () => (rng() - 0.5) * 2 * scale);
}

function i64(rows: number[][]): ort.Tensor {
  const T = Math.max(...rows.map((r) => r.length));
  return new ort.Tensor('int64', BigInt64Array.from(rows.flatMap((r) => [...r, ...Array(T - r.length).fill(0)]).map(BigInt)), [rows.length, T]);
}

describe('protobuf writer', () => {
  it('encodes varints, negative int64, fixed32 floats, strings and nested messages', () => {
    expect(bytes(new ProtoWriter().varint(0))).toEqual([0]);
    expect(bytes(new ProtoWriter().varint(1))).toEqual([1]);
    expect(bytes(new ProtoWriter().varint(300))).toEqual([0xac, 0x02]);
    expect(bytes(new ProtoWriter().varint(2 ** 35))).toEqual([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
    // int64 -1: ten bytes of two's complement
    expect(bytes(new ProtoWriter().varint(-1))).toEqual([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    expect(bytes(new ProtoWriter().int(1, 150))).toEqual([0x08, 0x96, 0x01]);
    expect(bytes(new ProtoWriter().string(2, 'testing'))).toEqual([0x12, 0x07, 0x74, 0x65, 0x73, 0x74, 0x69, 0x6e, 0x67]);
    expect(bytes(new ProtoWriter().float(2, 1.5))).toEqual([0x15, 0x00, 0x00, 0xc0, 0x3f]);
    const inner = new ProtoWriter().int(1, 150);
    expect(bytes(new ProtoWriter().message(3, inner))).toEqual([0x1a, 0x03, 0x08, 0x96, 0x01]);
    const w = new ProtoWriter().int(1, 1).bytes(2, new Uint8Array(200).fill(7)).int(3, 2);
    const out = w.finish();
    expect(out.length).toBe(w.length);
    expect([...out.slice(0, 5)]).toEqual([0x08, 0x01, 0x12, 0xc8, 0x01]);
    expect([...out.slice(-2)]).toEqual([0x18, 0x02]);
  });

  it('rejects tensors whose data does not match their dims or type', () => {
    const g = new GraphBuilder('bad');
    expect(() => g.initializer('w', 'float', [2, 3], new Float32Array(5))).toThrow(/w: dims \[2, 3\] need 6 values, got 5/);
    expect(() => g.initializer('w', 'int64', [2], new Float32Array(2))).toThrow(/int64 needs 8-byte elements/);
  });
});

describe('ONNX models written by hand run in onnxruntime', () => {
  it('attributes of every kind and int64 initializers are read back by operators', async () => {
    const g = new GraphBuilder('ops');
    g.input('x', 'float', [2, 3]);
    const t = g.node('Transpose', ['x'], undefined, { perm: ints([1, 0]) }); // [3,2]
    const r = g.node('Reshape', [t, g.int64s([-1])]); // [6]
    const lr = g.node('LeakyRelu', [r], undefined, { alpha: float(0.5) });
    const c = g.node('Concat', [lr, g.constant('float', [2], Float32Array.of(9, 10))], 'y', { axis: int(0) });
    g.node('Constant', [], 'z', { value_floats: floats([1.25, -2]) });
    g.node('CastLike', ['z', c], 'z2');
    g.node('Pad', ['x', g.int64s([0, 1, 0, 1])], 'p', { mode: str('edge') });
    g.output('y', 'float', [8]);
    g.output('z2', 'float', [2]);
    g.output('p', 'float', [2, 5]);
    const session = await ort.InferenceSession.create(g.toModelBytes({ metadata: { purpose: 'test' } }));
    const out = await session.run({ x: new ort.Tensor('float32', Float32Array.of(1, -2, 3, -4, 5, -6), [2, 3]) });
    expect([...(out.y!.data as Float32Array)]).toEqual([1, -2, -1, 5, 3, -3, 9, 10]);
    expect([...(out.z2!.data as Float32Array)]).toEqual([1.25, -2]);
    expect([...(out.p!.data as Float32Array)]).toEqual([1, 1, -2, 3, 3, -4, -4, 5, -6, -6]);
    expect(session.inputNames).toEqual(['x']);
  });

  it('the bi-encoder graph computes masked mean pooling and projection like JavaScript', async () => {
    const rng = mulberry32(7);
    const vocab = 30, hidden = 8, dim = 5;
    const embeddings = randomArray(vocab * hidden, rng);
    const projection = randomArray(hidden * dim, rng);
    const seqs = [[2, 7, 8, 9, 3], [2, 12, 3], [2, 20, 21, 22, 23, 24, 25, 3]];
    const session = await ort.InferenceSession.create(biEncoderGraph({ vocab, hidden, embeddings, dim, projection }).toModelBytes());
    const out = await session.run({ input_ids: i64(seqs), attention_mask: i64(seqs.map((s) => s.map(() => 1))) });
    const got = out.sentence_embedding!.data as Float32Array;
    expect(out.sentence_embedding!.dims).toEqual([3, dim]);
    seqs.forEach((s, b) => {
      const mean = new Float64Array(hidden);
      for (const id of s) for (let h = 0; h < hidden; h++) mean[h]! += embeddings[id * hidden + h]! / s.length;
      for (let d = 0; d < dim; d++) {
        let want = 0;
        for (let h = 0; h < hidden; h++) want += mean[h]! * projection[h * dim + d]!;
        expect(got[b * dim + d]!).toBeCloseTo(want, 5);
      }
    });
  });

  it('the K-NRM cross-encoder graph computes the JavaScript reference score', async () => {
    const rng = mulberry32(11);
    const vocab = 25, hidden = 6;
    const embeddings = randomArray(vocab * hidden, rng);
    for (let h = 0; h < hidden; h++) embeddings[h] = 0; // id 0 (padding) embeds to zero
    const w = { vocab, hidden, embeddings, mus: [1, 0.5, 0, -0.5], sigmas: [0.001, 0.1, 0.1, 0.1], weights: [0.7, 0.3, -0.2, 0.1], bias: 0.25 };
    const session = await ort.InferenceSession.create(crossEncoderGraph(w).toModelBytes());
    const pairs = [
      { ids: [2, 5, 6, 7, 3, 5, 9, 3], types: [0, 0, 0, 0, 0, 1, 1, 1] },
      { ids: [2, 5, 6, 7, 3, 11, 12, 13, 3], types: [0, 0, 0, 0, 0, 1, 1, 1, 1] },
    ];
    const T = 9;
    const pad = (r: number[]) => [...r, ...Array(T - r.length).fill(0)];
    const out = await session.run({
      input_ids: new ort.Tensor('int64', BigInt64Array.from(pairs.flatMap((p) => pad(p.ids)).map(BigInt)), [2, T]),
      attention_mask: new ort.Tensor('int64', BigInt64Array.from(pairs.flatMap((p) => pad(p.ids.map(() => 1))).map(BigInt)), [2, T]),
      token_type_ids: new ort.Tensor('int64', BigInt64Array.from(pairs.flatMap((p) => pad(p.types)).map(BigInt)), [2, T]),
    });
    expect(out.logits!.dims).toEqual([2, 1]);
    pairs.forEach((p, b) => expect((out.logits!.data as Float32Array)[b]!).toBeCloseTo(crossEncoderReference(w, p.ids, p.types), 4));
  });
});
