/**
 * A small ONNX graph builder and writer. It encodes ModelProto / GraphProto / NodeProto /
 * TensorProto / ValueInfoProto / AttributeProto by hand (see onnx.proto; field numbers below),
 * so tests can build tiny real models and the training issue can export trained weights
 * without Python. Default: IR version 8, opset 17 (ONNX 1.12+, any onnxruntime since 1.12).
 *
 *   const g = new GraphBuilder('bi_encoder');
 *   g.input('input_ids', 'int64', ['batch', 'tokens']);
 *   g.initializer('emb', 'float', [vocab, dim], table);
 *   g.node('Gather', ['emb', 'input_ids'], ['tok'], { axis: int(0) });
 *   g.output('tok', 'float', ['batch', 'tokens', dim]);
 *   writeFileSync('model.onnx', g.toModelBytes());
 */
import { ProtoWriter } from './protobuf.js';

/** TensorProto.DataType values. */
export const DATA_TYPES = {
  float: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  string: 8,
  bool: 9,
  float16: 10,
  double: 11,
} as const;

export type ElemType = keyof typeof DATA_TYPES;

/** A dimension: a fixed size, or a symbolic name such as "batch". */
export type Dim = number | string;

export type TensorData = Float32Array | Float64Array | Int32Array | BigInt64Array | Int8Array | Uint8Array | Int16Array | Uint16Array;

export interface TensorSpec {
  type: ElemType;
  dims: number[];
  /** Row-major values; written as raw_data (little-endian), as exporters do. For bool use Uint8Array of 0/1. */
  data: TensorData;
}

/** Attribute values are tagged, because a JS number cannot tell int from float. */
export type Attr =
  | { kind: 'int'; value: number | bigint }
  | { kind: 'float'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'ints'; value: (number | bigint)[] }
  | { kind: 'floats'; value: number[] }
  | { kind: 'strings'; value: string[] }
  | { kind: 'tensor'; value: TensorSpec };

export const int = (value: number | bigint): Attr => ({ kind: 'int', value });
export const float = (value: number): Attr => ({ kind: 'float', value });
export const str = (value: string): Attr => ({ kind: 'string', value });
export const ints = (value: (number | bigint)[]): Attr => ({ kind: 'ints', value });
export const floats = (value: number[]): Attr => ({ kind: 'floats', value });
export const tensorAttr = (value: TensorSpec): Attr => ({ kind: 'tensor', value });

// AttributeProto.AttributeType
const ATTR_TYPE = { float: 1, int: 2, string: 3, tensor: 4, floats: 6, ints: 7, strings: 8 } as const;

export interface NodeSpec {
  op: string;
  inputs: string[];
  outputs: string[];
  attrs?: Record<string, Attr>;
  name?: string;
  domain?: string;
}

export interface ValueSpec {
  name: string;
  type: ElemType;
  shape: Dim[];
}

export interface ModelOptions {
  irVersion?: number;
  opset?: number;
  producerName?: string;
  producerVersion?: string;
  docString?: string;
  /** ModelProto.metadata_props */
  metadata?: Record<string, string>;
}

const BYTES_PER: Record<ElemType, number> = {
  float: 4, uint8: 1, int8: 1, uint16: 2, int16: 2, int32: 4, int64: 8, string: 0, bool: 1, float16: 2, double: 8,
};

function checkTensor(name: string, t: TensorSpec): void {
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (t.type === 'string') throw new Error(`tensor ${name}: string tensors are not supported by this writer`);
  if (t.data.length !== count) throw new Error(`tensor ${name}: dims [${t.dims.join(', ')}] need ${count} values, got ${t.data.length}`);
  if (t.data.BYTES_PER_ELEMENT !== BYTES_PER[t.type]) {
    throw new Error(`tensor ${name}: ${t.type} needs ${BYTES_PER[t.type]}-byte elements, got a ${t.data.constructor.name}`);
  }
}

/** Little-endian bytes of a typed array (a view, no copy, on little-endian hosts). */
function rawBytes(data: TensorData): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export function encodeTensor(name: string, t: TensorSpec): ProtoWriter {
  checkTensor(name, t);
  const w = new ProtoWriter();
  for (const d of t.dims) w.int(1, d); // dims
  w.int(2, DATA_TYPES[t.type]); // data_type
  if (name) w.string(8, name); // name
  w.bytes(9, rawBytes(t.data)); // raw_data
  return w;
}

function encodeAttr(name: string, a: Attr): ProtoWriter {
  const w = new ProtoWriter();
  w.string(1, name);
  switch (a.kind) {
    case 'float': w.float(2, a.value); break;
    case 'int': w.int(3, a.value); break;
    case 'string': w.string(4, a.value); break;
    case 'tensor': w.message(5, encodeTensor('', a.value)); break;
    case 'floats': for (const v of a.value) w.float(7, v); break;
    case 'ints': for (const v of a.value) w.int(8, v); break;
    case 'strings': for (const v of a.value) w.string(9, v); break;
  }
  w.int(20, ATTR_TYPE[a.kind]);
  return w;
}

function encodeNode(n: NodeSpec): ProtoWriter {
  const w = new ProtoWriter();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  if (n.name) w.string(3, n.name);
  w.string(4, n.op);
  for (const [k, v] of Object.entries(n.attrs ?? {})) w.message(5, encodeAttr(k, v));
  if (n.domain) w.string(7, n.domain);
  return w;
}

function encodeValueInfo(v: ValueSpec): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of v.shape) {
    const dim = new ProtoWriter();
    if (typeof d === 'number') dim.int(1, d);
    else dim.string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new ProtoWriter().int(1, DATA_TYPES[v.type]).message(2, shape);
  const type = new ProtoWriter().message(1, tensorType);
  return new ProtoWriter().string(1, v.name).message(2, type);
}

export class GraphBuilder {
  readonly nodes: NodeSpec[] = [];
  readonly inputs: ValueSpec[] = [];
  readonly outputs: ValueSpec[] = [];
  readonly initializers: { name: string; tensor: TensorSpec }[] = [];
  private counter = 0;

  constructor(readonly name: string) {}

  input(name: string, type: ElemType, shape: Dim[]): string {
    this.inputs.push({ name, type, shape });
    return name;
  }

  output(name: string, type: ElemType, shape: Dim[]): string {
    this.outputs.push({ name, type, shape });
    return name;
  }

  initializer(name: string, type: ElemType, dims: number[], data: TensorData): string {
    checkTensor(name, { type, dims, data });
    this.initializers.push({ name, tensor: { type, dims, data } });
    return name;
  }

  /** A constant as an initializer with a fresh name. */
  constant(type: ElemType, dims: number[], data: TensorData, hint = 'const'): string {
    return this.initializer(this.fresh(hint), type, dims, data);
  }

  /** An int64 1-D constant, e.g. axes for ReduceSum/Unsqueeze (opset 13+) or a shape for Reshape. */
  int64s(values: number[], hint = 'i64'): string {
    return this.constant('int64', [values.length], BigInt64Array.from(values.map(BigInt)), hint);
  }

  /** A float scalar constant (shape []). */
  scalar(value: number, hint = 'scalar'): string {
    return this.constant('float', [], Float32Array.of(value), hint);
  }

  fresh(hint = 't'): string {
    return `${hint}_${this.counter++}`;
  }

  /** Adds a node; returns its first output name. Outputs default to one fresh name. */
  node(op: string, inputs: string[], outputs?: string[] | string, attrs?: Record<string, Attr>): string {
    const outs = outputs === undefined ? [this.fresh(op.toLowerCase())] : typeof outputs === 'string' ? [outputs] : outputs;
    this.nodes.push({ op, inputs, outputs: outs, attrs });
    return outs[0]!;
  }

  encodeGraph(): ProtoWriter {
    const w = new ProtoWriter();
    for (const n of this.nodes) w.message(1, encodeNode(n));
    w.string(2, this.name);
    for (const i of this.initializers) w.message(5, encodeTensor(i.name, i.tensor));
    for (const v of this.inputs) w.message(11, encodeValueInfo(v));
    for (const v of this.outputs) w.message(12, encodeValueInfo(v));
    return w;
  }

  toModelBytes(opts: ModelOptions = {}): Uint8Array {
    const w = new ProtoWriter();
    w.int(1, opts.irVersion ?? 8); // ir_version
    w.string(2, opts.producerName ?? 'lightmud');
    w.string(3, opts.producerVersion ?? '0.1.0');
    if (opts.docString) w.string(6, opts.docString);
    w.message(7, this.encodeGraph());
    w.message(8, new ProtoWriter().string(1, '').int(2, opts.opset ?? 17)); // opset_import (default domain)
    for (const [k, v] of Object.entries(opts.metadata ?? {})) w.message(14, new ProtoWriter().string(1, k).string(2, v));
    return w.finish();
  }
}
