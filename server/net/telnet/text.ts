/**
 * Text on the wire: output formatting (line endings, word wrap, colour stripping) and input line assembly
 * (CR, CR LF, CR NUL, LF and LF CR line ends; length limit; erase commands; UTF-8 decoding; control bytes removed).
 * Pure: no I/O.
 */

// ESC sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), SS3 (ESC O x) and two-byte ESC x.
const ESCAPE_RE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|O.|[ -~])?/g;

/** Remove ANSI escape sequences (colour and any other) from text. */
export function stripAnsi(text: string): string {
  return text.indexOf('\x1b') < 0 ? text : text.replace(ESCAPE_RE, '');
}

/** Number of columns a string takes, ignoring escape sequences (one column per code point). */
export function visibleLength(text: string): number {
  let n = 0;
  const plain = stripAnsi(text);
  for (let i = 0; i < plain.length; i++) {
    const c = plain.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) continue; // low surrogate: same code point as the high one before it
    n++;
  }
  return n;
}

/**
 * Word-wrap one line (no line breaks in it) to `width` columns. Breaks at spaces; words longer than the width
 * are cut. Escape sequences take no columns. Spaces at a break are dropped; leading indentation is kept.
 */
export function wrapLine(line: string, width: number): string[] {
  if (width <= 0 || visibleLength(line) <= width) return [line];
  const out: string[] = [];
  let cur = '';
  let col = 0;
  // Tokens: runs of spaces, and words (runs of non-spaces, escape sequences included).
  const tokens = line.match(/ +|[^ ]+/g) ?? [];
  let pendingSpaces = '';
  for (const tok of tokens) {
    if (tok[0] === ' ') {
      pendingSpaces += tok;
      continue;
    }
    const len = visibleLength(tok);
    if (col + pendingSpaces.length + len <= width) {
      cur += pendingSpaces + tok;
      col += pendingSpaces.length + len;
      pendingSpaces = '';
      continue;
    }
    if (col > 0) {
      out.push(cur);
      cur = '';
      col = 0;
    } else if (pendingSpaces.length > 0 && pendingSpaces.length < width) {
      // Indentation at the start of a line: keep it if the word then fits.
      if (pendingSpaces.length + len <= width) {
        cur = pendingSpaces + tok;
        col = pendingSpaces.length + len;
        pendingSpaces = '';
        continue;
      }
    }
    pendingSpaces = '';
    if (len <= width) {
      cur = tok;
      col = len;
      continue;
    }
    // A word longer than the line: cut it, keeping escape sequences whole.
    for (const piece of cutWord(tok, width)) {
      if (col > 0) {
        out.push(cur);
        cur = '';
        col = 0;
      }
      cur = piece.text;
      col = piece.len;
    }
  }
  out.push(cur);
  return out;
}

function cutWord(word: string, width: number): Array<{ text: string; len: number }> {
  const pieces: Array<{ text: string; len: number }> = [];
  let text = '';
  let len = 0;
  const re = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|O.|[ -~])?|[\s\S]/gu;
  for (const m of word.matchAll(re)) {
    const t = m[0];
    if (t[0] === '\x1b') {
      text += t;
      continue;
    }
    if (len === width) {
      pieces.push({ text, len });
      text = '';
      len = 0;
    }
    text += t;
    len++;
  }
  if (text) pieces.push({ text, len });
  return pieces;
}

export interface FormatOptions {
  /** Wrap width in columns; 0 for none. */
  width: number;
  /** Keep ANSI escape sequences (true) or strip them (false). */
  colour: boolean;
}

/**
 * Prepare text for a telnet terminal: strip colour if off, normalise any CR LF / CR / LF to CR LF, and wrap
 * each line to the width. Does not add or remove a final line break.
 */
export function formatOutput(text: string, opts: FormatOptions): string {
  let t = opts.colour ? text : stripAnsi(text);
  if (t.indexOf('\r') >= 0) t = t.replace(/\r\n?/g, '\n');
  const lines = t.split('\n');
  if (opts.width > 0) {
    const wrapped: string[] = [];
    for (const line of lines) {
      for (const w of wrapLine(line, opts.width)) wrapped.push(w);
    }
    return wrapped.join('\r\n');
  }
  return lines.join('\r\n');
}

const CR = 13;
const LF = 10;
const NUL = 0;

/**
 * Assembles input bytes (telnet data, IAC sequences already removed) into lines. A line ends at CR, LF,
 * CR LF, CR NUL or LF CR; each is one line end. A line longer than `maxLength` bytes is discarded whole and
 * reported once through `onOverflow` as soon as it passes the limit.
 */
export class LineAssembler {
  private parts: Buffer[] = [];
  private length = 0;
  private overflowed = false;
  private afterCR = false;
  private afterLF = false;

  constructor(
    private readonly maxLength: number,
    private readonly onLine: (bytes: Buffer) => void,
    private readonly onOverflow: () => void,
  ) {}

  feed(data: Buffer): void {
    let start = 0;
    const n = data.length;
    for (let i = 0; i < n; i++) {
      const b = data[i]!;
      if (this.afterCR) {
        this.afterCR = false;
        if (b === LF || b === NUL) {
          start = i + 1;
          continue;
        }
      } else if (this.afterLF) {
        this.afterLF = false;
        if (b === CR) {
          start = i + 1;
          continue;
        }
      }
      if (b === CR || b === LF) {
        this.append(data, start, i);
        this.endLine();
        if (b === CR) this.afterCR = true;
        else this.afterLF = true;
        start = i + 1;
      }
    }
    this.append(data, start, n);
  }

  /** IAC EC: erase the last character of the line being typed. */
  eraseChar(): void {
    if (this.overflowed || this.length === 0) return;
    const all = Buffer.concat(this.parts, this.length);
    let end = all.length - 1;
    while (end > 0 && (all[end]! & 0xc0) === 0x80) end--; // back over UTF-8 continuation bytes
    this.parts = [all.subarray(0, end)];
    this.length = end;
  }

  /** IAC EL (or IP): erase the line being typed. */
  eraseLine(): void {
    this.parts = [];
    this.length = 0;
    this.overflowed = false;
  }

  /** The partial line not yet ended, if any (at end of stream). */
  takePartial(): Buffer | null {
    if (this.overflowed || this.length === 0) {
      this.eraseLine();
      return null;
    }
    const line = Buffer.concat(this.parts, this.length);
    this.eraseLine();
    return line;
  }

  get pendingBytes(): number {
    return this.length;
  }

  private append(data: Buffer, from: number, to: number): void {
    if (to <= from || this.overflowed) return;
    if (this.length + (to - from) > this.maxLength) {
      this.overflowed = true;
      this.parts = [];
      this.length = 0;
      this.onOverflow();
      return;
    }
    this.parts.push(Buffer.from(data.subarray(from, to)));
    this.length += to - from;
  }

  private endLine(): void {
    if (this.overflowed) {
      this.overflowed = false;
      return;
    }
    const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.length);
    this.parts = [];
    this.length = 0;
    this.onLine(line);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// Bidirectional-text overrides and isolates can disguise what a line says to other players: removed.
const BIDI_RE = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * Decode a received line: UTF-8 with invalid bytes dropped (or, with `latin1Fallback`, a line that is not valid
 * UTF-8 read as Latin-1, for clients that said they do not speak UTF-8); terminal escape sequences (arrow keys and the like)
 * dropped; BS and DEL erase the character before them; tab becomes a space; all other control characters
 * (C0, C1, DEL) and bidirectional overrides are removed.
 */
export function decodeLine(bytes: Buffer, latin1Fallback = false): string {
  // Fast path: printable ASCII needs no decoding or cleaning.
  let plain = true;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x20 || b > 0x7e) {
      plain = false;
      break;
    }
  }
  if (plain) return bytes.toString('latin1');
  let s: string;
  if (latin1Fallback) {
    try {
      s = utf8Strict.decode(bytes);
    } catch {
      s = bytes.toString('latin1');
    }
  } else {
    s = utf8.decode(bytes);
  }
  if (s.indexOf('\ufffd') >= 0) s = s.replace(/\ufffd/g, '');
  s = s.replace(ESCAPE_RE, '');
  if (/[\x08\x7f]/.test(s)) {
    const out: string[] = [];
    for (const ch of s) {
      if (ch === '\x08' || ch === '\x7f') out.pop();
      else out.push(ch);
    }
    s = out.join('');
  }
  return s.replace(/\t/g, ' ').replace(/[\x00-\x1f\x7f-\x9f]/g, '').replace(BIDI_RE, '');
}
