/**
 * Word associations between what a character hears and what it says back, learned by counting the
 * training split's exchanges: pointwise mutual information (PMI) between the words of a source
 * (the partner's last line, the speaker's own last line, the speaker's persona, the partner's last
 * action or emote) and the words of the reply that followed. "where" goes with "north", "road" and
 * "past"; "hungry" with "bread" and "stew"; "fisherman" in a persona with "nets" and "catch"; a line ending in "?" with replies
 * opening "yes" or "no". Unlike the bi-encoder's embeddings these are exact counts of ordinary
 * conversation, and they carry over to settings the encoders never saw.
 *
 * Only pairs seen in at least `minCount` exchanges with positive PMI are kept. For a context, each
 * source's words are turned once into a profile over reply words (the best PMI of any source word,
 * and the sum); a candidate's features are then a lookup per word of the candidate:
 *   - `max`: mean over the candidate's words of the best PMI with any source word;
 *   - `mean`: mean PMI over every (source word, candidate word) pair (0 where no pair was kept).
 *
 * Stored in the model directory as `associations.bin` (see `write`); made by `lightmud fit-hybrid`
 * from the training split (models/training/fit-associations.ts), never from the data being scored.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allWords, irWords, isQuestion, lastOf, type ContextParts } from './lexical.js';

export const ASSOCIATIONS_FILE = 'associations.bin';

/**
 * What a reply is compared with: the partner's last line, the speaker's own last line, the speaker's
 * persona, and the partner's last action or emote ("give bread to miller", "wave").
 */
export const ASSOCIATION_SOURCES = ['last', 'self', 'persona', 'partner_act'] as const;
export type AssociationSource = (typeof ASSOCIATION_SOURCES)[number];

/** PMI is stored in steps of 1/20 in one byte (PMI here is below ln(number of exchanges) < 12.75). */
const PMI_SCALE = 20;
const MAGIC = 'LMAS';
const FORMAT_VERSION = 1;

/** The source tokens of one source in a context (prefixed by source, so the sources never share a word). */
export function sourceTokens(source: AssociationSource, parts: ContextParts): string[] {
  if (source === 'persona') return unique(irWords(parts.persona).map((w) => `P:${w}`));
  if (source === 'partner_act') {
    for (let i = parts.history.length - 1; i >= 0; i--) {
      const h = parts.history[i]!;
      if (h.who === 'partner' && h.kind !== 'say') return unique(allWords(h.text).map((w) => `A:${w}`));
    }
    return [];
  }
  const line = lastOf(parts.history, source === 'last' ? 'partner' : 'self', 'say')?.text;
  if (!line) return [];
  const words = allWords(line);
  if (source === 'self') return unique(words.map((w) => `S:${w}`));
  const out = words.map((w) => `L:${w}`);
  // how the line opens ("do you", "where is") and whether it asks
  if (words[0]) out.push(`F:${words[0]}`);
  if (words.length > 1) out.push(`B:${words[0]} ${words[1]}`);
  if (isQuestion(line)) out.push('Q:?');
  return unique(out);
}

/** The reply tokens of a line: its words, its first word, and whether it asks. */
export function replyTokens(line: string): string[] {
  const words = allWords(line);
  if (words[0]) words.push(`RF:${words[0]}`);
  if (isQuestion(line)) words.push('RQ:?');
  return unique(words);
}

/** Bytes a reply-word id takes in the file. */
function targetBytes(replyWords: number): 2 | 4 {
  return replyWords <= 0xffff ? 2 : 4;
}

/** Bytes of padding that bring `n` to a multiple of 4. */
const pad4 = (n: number): number => (4 - (n % 4)) % 4;

function unique(a: string[]): string[] {
  return a.length < 2 ? a : [...new Set(a)];
}

/** One source's pairs as adjacency lists: for source word s, reply words targets[offsets[s]..offsets[s+1]) with their PMI. */
export interface AssociationTable {
  offsets: Uint32Array;
  /** Reply-word ids: 16-bit while the reply vocabulary fits, else 32-bit. */
  targets: Uint16Array | Uint32Array;
  /** PMI x PMI_SCALE, rounded. */
  pmi: Uint8Array;
}

/** A context's source as a profile over reply words (dense, by reply-word id): best PMI and sum of PMI, and how many source words. */
export interface AssociationProfile {
  best: Float32Array;
  sum: Float32Array;
  sources: number;
}

export const ASSOCIATION_FEATURES = ASSOCIATION_SOURCES.flatMap((s) => [`assoc_${s}_max`, `assoc_${s}_mean`]);

export class Associations {
  private readonly sourceIndex = new Map<string, number>();
  private readonly replyIndex = new Map<string, number>();

  constructor(
    readonly sourceWords: readonly string[],
    readonly replyWords: readonly string[],
    readonly tables: Readonly<Record<AssociationSource, AssociationTable>>,
    /** How they were made (exchanges counted, the least count kept). */
    readonly meta: Readonly<Record<string, unknown>> = {},
  ) {
    sourceWords.forEach((w, i) => this.sourceIndex.set(w, i));
    replyWords.forEach((w, i) => this.replyIndex.set(w, i));
    for (const s of ASSOCIATION_SOURCES) {
      const t = tables[s];
      if (t.offsets.length !== sourceWords.length + 1 || t.targets.length !== t.pmi.length || t.offsets[sourceWords.length] !== t.targets.length) {
        throw new Error(`associations: the ${s} table does not match its vocabulary`);
      }
    }
  }

  get pairs(): number {
    return ASSOCIATION_SOURCES.reduce((n, s) => n + this.tables[s].targets.length, 0);
  }

  /** The profile of one source's tokens. */
  profile(source: AssociationSource, tokens: readonly string[]): AssociationProfile {
    const best = new Float32Array(this.replyWords.length);
    const sum = new Float32Array(this.replyWords.length);
    const t = this.tables[source];
    for (const token of tokens) {
      const s = this.sourceIndex.get(token);
      if (s === undefined) continue;
      for (let k = t.offsets[s]!, end = t.offsets[s + 1]!; k < end; k++) {
        const r = t.targets[k]!;
        const p = t.pmi[k]! / PMI_SCALE;
        if (p > best[r]!) best[r] = p;
        sum[r] = sum[r]! + p;
      }
    }
    return { best, sum, sources: tokens.length };
  }

  /** Recent personas' profiles (a character's persona is the same every turn; it is the costliest source). LRU. */
  private readonly personaMemo = new Map<string, AssociationProfile>();
  private static readonly PERSONA_MEMO = 128;

  /** Profiles of every source of a context, in ASSOCIATION_SOURCES order. Shared: never change one. */
  profiles(parts: ContextParts): AssociationProfile[] {
    return ASSOCIATION_SOURCES.map((s) => {
      if (s !== 'persona') return this.profile(s, sourceTokens(s, parts));
      let p = this.personaMemo.get(parts.persona);
      if (p) this.personaMemo.delete(parts.persona);
      else {
        p = this.profile(s, sourceTokens(s, parts));
        if (this.personaMemo.size >= Associations.PERSONA_MEMO) this.personaMemo.delete(this.personaMemo.keys().next().value!);
      }
      this.personaMemo.set(parts.persona, p);
      return p;
    });
  }

  /** Recent lines' reply-word ids: live play scores the same pool lines turn after turn. Bounded. */
  private readonly idMemo = new Map<string, number[]>();

  /** Reply-word ids of a line (-1 for words never seen in a kept pair). Shared: never change one. */
  replyIds(line: string): number[] {
    let ids = this.idMemo.get(line);
    if (!ids) {
      ids = replyTokens(line).map((w) => this.replyIndex.get(w) ?? -1);
      if (this.idMemo.size >= 50_000) this.idMemo.clear();
      this.idMemo.set(line, ids);
    }
    return ids;
  }

  /** Writes the two features of each profile for a candidate's reply-word ids into out[at..]. */
  static write(out: { [i: number]: number }, at: number, profiles: readonly AssociationProfile[], ids: readonly number[]): void {
    for (let k = 0; k < profiles.length; k++) {
      const p = profiles[k]!;
      let best = 0;
      let sum = 0;
      if (p.sources && ids.length) {
        for (const r of ids) {
          if (r < 0) continue;
          best += p.best[r]!;
          sum += p.sum[r]!;
        }
        best /= ids.length;
        sum /= p.sources * ids.length;
      }
      out[at + 2 * k] = best;
      out[at + 2 * k + 1] = sum;
    }
  }

  /**
   * Binary file: "LMAS", u32 format version, u32 header length, a JSON header (the two vocabularies,
   * each table's pair count, meta), padding to 4 bytes, then per source in ASSOCIATION_SOURCES order:
   * offsets (u32 x sourceWords+1), targets (u32 x pairs), PMI bytes (u8 x pairs), padded to 4 bytes.
   * Little-endian.
   */
  write(dir: string): string {
    const header = Buffer.from(JSON.stringify({
      sourceWords: this.sourceWords, replyWords: this.replyWords,
      pairs: Object.fromEntries(ASSOCIATION_SOURCES.map((s) => [s, this.tables[s].targets.length])), scale: PMI_SCALE, targetBytes: targetBytes(this.replyWords.length), meta: this.meta,
    }), 'utf8');
    const chunks: Buffer[] = [];
    const head = Buffer.alloc(12);
    head.write(MAGIC, 0, 'latin1');
    head.writeUInt32LE(FORMAT_VERSION, 4);
    head.writeUInt32LE(header.length, 8);
    chunks.push(head, header, Buffer.alloc(pad4(header.length)));
    for (const s of ASSOCIATION_SOURCES) {
      const t = this.tables[s];
      chunks.push(Buffer.from(t.offsets.buffer, t.offsets.byteOffset, t.offsets.byteLength));
      chunks.push(Buffer.from(t.targets.buffer, t.targets.byteOffset, t.targets.byteLength), Buffer.alloc(pad4(t.targets.byteLength)));
      chunks.push(Buffer.from(t.pmi.buffer, t.pmi.byteOffset, t.pmi.byteLength), Buffer.alloc(pad4(t.pmi.length)));
    }
    const path = join(dir, ASSOCIATIONS_FILE);
    writeFileSync(path, Buffer.concat(chunks));
    return path;
  }

  /** Reads `associations.bin` from a model directory; undefined when there is none; a clear error when it is damaged. */
  static read(dir: string): Associations | undefined {
    const path = join(dir, ASSOCIATIONS_FILE);
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const fail = (why: string) => new Error(`${path}: ${why}; remake it with lightmud fit-hybrid`);
    if (buf.length < 12 || buf.toString('latin1', 0, 4) !== MAGIC) throw fail('not a lightmud associations file');
    if (buf.readUInt32LE(4) !== FORMAT_VERSION) throw fail(`format version ${buf.readUInt32LE(4)}, this runtime reads ${FORMAT_VERSION}`);
    const headerLength = buf.readUInt32LE(8);
    if (12 + headerLength > buf.length) throw fail('truncated');
    let header: { sourceWords: string[]; replyWords: string[]; pairs: Record<string, number>; scale: number; targetBytes: number; meta?: Record<string, unknown> };
    try {
      header = JSON.parse(buf.toString('utf8', 12, 12 + headerLength));
    } catch {
      throw fail('its header is not JSON');
    }
    if (header.scale !== PMI_SCALE || !Array.isArray(header.sourceWords) || !Array.isArray(header.replyWords) || header.targetBytes !== targetBytes(header.replyWords.length)) throw fail('unexpected header');
    let at = 12 + headerLength;
    at += pad4(at);
    // copies, 4-byte aligned whatever the Buffer pool's offset
    const take = (bytes: number): Buffer => {
      if (at + bytes > buf.length) throw fail('truncated');
      const b = Buffer.from(buf.subarray(at, at + bytes));
      at += bytes;
      return b;
    };
    const u32 = (count: number) => {
      const b = take(count * 4);
      return new Uint32Array(b.buffer, b.byteOffset, count);
    };
    const u16 = (count: number) => {
      const b = take(count * 2);
      at += pad4(count * 2);
      return new Uint16Array(b.buffer, b.byteOffset, count);
    };
    const tables = {} as Record<AssociationSource, AssociationTable>;
    const words = header.sourceWords.length;
    for (const s of ASSOCIATION_SOURCES) {
      const pairs = header.pairs[s];
      if (!Number.isInteger(pairs) || pairs! < 0) throw fail(`no pair count for ${s}`);
      const offsets = u32(words + 1);
      const targets = header.targetBytes === 2 ? u16(pairs!) : u32(pairs!);
      const pmi = new Uint8Array(take(pairs!));
      at += pad4(pairs!);
      for (let i = 0; i < targets.length; i++) if (targets[i]! >= header.replyWords.length) throw fail(`a ${s} pair names reply word ${targets[i]}, beyond the vocabulary`);
      for (let i = 0; i < words; i++) if (offsets[i]! > offsets[i + 1]!) throw fail(`the ${s} offsets go backwards`);
      tables[s] = { offsets, targets, pmi };
    }
    try {
      return new Associations(header.sourceWords, header.replyWords, tables, header.meta ?? {});
    } catch (err) {
      throw fail((err as Error).message);
    }
  }

  /** Built from counts (models/training/fit-associations.ts counts them). */
  static fromPairs(pairs: Record<AssociationSource, Map<string, Map<string, number>>>, meta: Record<string, unknown> = {}): Associations {
    const sourceSet = new Set<string>();
    const replySet = new Set<string>();
    for (const s of ASSOCIATION_SOURCES) for (const [src, m] of pairs[s]) { sourceSet.add(src); for (const r of m.keys()) replySet.add(r); }
    const sourceWords = [...sourceSet].sort();
    const replyWords = [...replySet].sort();
    const replyIndex = new Map(replyWords.map((w, i) => [w, i]));
    const tables = {} as Record<AssociationSource, AssociationTable>;
    for (const s of ASSOCIATION_SOURCES) {
      const offsets = new Uint32Array(sourceWords.length + 1);
      const targets: number[] = [];
      const pmi: number[] = [];
      sourceWords.forEach((w, i) => {
        offsets[i] = targets.length;
        const m = pairs[s].get(w);
        if (m) for (const [r, p] of [...m].sort((a, b) => replyIndex.get(a[0])! - replyIndex.get(b[0])!)) {
          targets.push(replyIndex.get(r)!);
          pmi.push(Math.max(0, Math.min(255, Math.round(p * PMI_SCALE))));
        }
      });
      offsets[sourceWords.length] = targets.length;
      tables[s] = { offsets, targets: targetBytes(replyWords.length) === 2 ? Uint16Array.from(targets) : Uint32Array.from(targets), pmi: Uint8Array.from(pmi) };
    }
    return new Associations(sourceWords, replyWords, tables, meta);
  }
}
