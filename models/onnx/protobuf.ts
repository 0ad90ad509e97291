/**
 * A minimal protocol-buffers *writer*: varints, fixed32, length-delimited fields and nested
 * messages, which is all that ONNX's ModelProto needs. Nested messages are kept as lists of
 * chunks and concatenated once at the end, so large tensors (raw_data) are copied only once.
 *
 * Wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.
 */

const WIRE_VARINT = 0;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

const textEncoder = new TextEncoder();

export class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private scratch: number[] = [];
  /** Total encoded length in bytes. */
  length = 0;

  private flushScratch(): void {
    if (this.scratch.length === 0) return;
    this.chunks.push(Uint8Array.from(this.scratch));
    this.scratch = [];
  }

  private pushByte(b: number): void {
    this.scratch.push(b);
    this.length++;
  }

  private pushBytes(bytes: Uint8Array): void {
    this.flushScratch();
    if (bytes.length) this.chunks.push(bytes);
    this.length += bytes.length;
  }

  /** An unsigned varint; negative numbers are written as 64-bit two's complement (10 bytes), as protobuf does for int64/int32. */
  varint(value: number | bigint): this {
    if (typeof value === 'number') {
      if (!Number.isInteger(value)) throw new Error(`varint needs an integer, got ${value}`);
      if (value >= 0 && value <= 0x7fffffff) {
        let v = value;
        while (v > 0x7f) {
          this.pushByte((v & 0x7f) | 0x80);
          v >>>= 7;
        }
        this.pushByte(v);
        return this;
      }
      value = BigInt(value);
    }
    let v = BigInt.asUintN(64, value);
    while (v > 0x7fn) {
      this.pushByte(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.pushByte(Number(v));
    return this;
  }

  tag(field: number, wire: number): this {
    return this.varint((field << 3) | wire);
  }

  /** int32 / int64 / enum / bool field. */
  int(field: number, value: number | bigint): this {
    return this.tag(field, WIRE_VARINT).varint(value);
  }

  float(field: number, value: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.tag(field, WIRE_FIXED32);
    this.pushBytes(b);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_LEN).varint(value.length);
    this.pushBytes(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, textEncoder.encode(value));
  }

  /** A nested message: its bytes are appended without re-copying. */
  message(field: number, sub: ProtoWriter): this {
    this.tag(field, WIRE_LEN).varint(sub.length);
    sub.flushScratch();
    this.flushScratch();
    for (const c of sub.chunks) this.chunks.push(c);
    this.length += sub.length;
    return this;
  }

  /** Packed repeated varints (accepted by proto2 and proto3 parsers for repeated scalar fields). */
  packedVarints(field: number, values: Iterable<number | bigint>): this {
    const sub = new ProtoWriter();
    for (const v of values) sub.varint(v);
    sub.flushScratch();
    this.tag(field, WIRE_LEN).varint(sub.length);
    this.flushScratch();
    for (const c of sub.chunks) this.chunks.push(c);
    this.length += sub.length;
    return this;
  }

  /** Packed repeated floats (fixed32). */
  packedFloats(field: number, values: ArrayLike<number>): this {
    const b = new Uint8Array(values.length * 4);
    const dv = new DataView(b.buffer);
    for (let i = 0; i < values.length; i++) dv.setFloat32(i * 4, values[i]!, true);
    return this.bytes(field, b);
  }

  finish(): Uint8Array {
    this.flushScratch();
    if (this.chunks.length === 1) return this.chunks[0]!;
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
