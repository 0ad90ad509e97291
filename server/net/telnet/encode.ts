/**
 * Encoders and decoders for telnet sequences and the MUD subnegotiation payloads (NAWS, TTYPE, MSSP, GMCP, MSDP,
 * CHARSET). Pure functions over bytes.
 */
import {
  CHARSET_ACCEPTED,
  CHARSET_REJECTED,
  CHARSET_REQUEST,
  IAC,
  MSDP_ARRAY_CLOSE,
  MSDP_ARRAY_OPEN,
  MSDP_TABLE_CLOSE,
  MSDP_TABLE_OPEN,
  MSDP_VAL,
  MSDP_VAR,
  MSSP_VAL,
  MSSP_VAR,
  SB,
  SE,
  TTYPE_IS,
  type Verb,
} from './constants.js';

/** Double every IAC (0xFF) byte, as RFC 854 requires for data and subnegotiation payloads. */
export function escapeIac(buf: Buffer): Buffer {
  let count = 0;
  let at = buf.indexOf(IAC);
  if (at < 0) return buf;
  while (at >= 0) {
    count++;
    at = buf.indexOf(IAC, at + 1);
  }
  const out = Buffer.allocUnsafe(buf.length + count);
  let o = 0;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    out[o++] = b;
    if (b === IAC) out[o++] = IAC;
  }
  return out;
}

/** IAC verb option. */
export function negotiation(verb: Verb, option: number): Buffer {
  return Buffer.of(IAC, verb, option);
}

/** IAC SB option payload IAC SE, with IAC bytes in the payload doubled. */
export function subnegotiation(option: number, payload: Buffer | string = Buffer.alloc(0)): Buffer {
  const body = escapeIac(typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload);
  const out = Buffer.allocUnsafe(body.length + 5);
  out[0] = IAC;
  out[1] = SB;
  out[2] = option;
  body.copy(out, 3);
  out[body.length + 3] = IAC;
  out[body.length + 4] = SE;
  return out;
}

/** NAWS payload (RFC 1073): width and height as 16-bit big-endian. Null when malformed. */
export function parseNaws(payload: Buffer): { width: number; height: number } | null {
  if (payload.length !== 4) return null;
  return { width: payload.readUInt16BE(0), height: payload.readUInt16BE(2) };
}

export function encodeNaws(width: number, height: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt16BE(width & 0xffff, 0);
  b.writeUInt16BE(height & 0xffff, 2);
  return b;
}

/** TTYPE IS payload (RFC 1091): IS followed by the terminal name. Printable ASCII only, at most 64 chars. */
export function parseTtypeIs(payload: Buffer): string | null {
  if (payload.length < 1 || payload[0] !== TTYPE_IS) return null;
  const name = payload
    .subarray(1, 65)
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '')
    .trim();
  return name.length > 0 ? name : null;
}

/** MSSP payload: VAR name VAL value [VAL value...] per variable. Bytes NUL, VAR and VAL are removed from names and values. */
export function encodeMssp(vars: Record<string, string | string[]>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(vars)) {
    const clean = msspClean(name);
    if (!clean) continue;
    parts.push(Buffer.of(MSSP_VAR), Buffer.from(clean, 'utf8'));
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) parts.push(Buffer.of(MSSP_VAL), Buffer.from(msspClean(String(v)), 'utf8'));
  }
  return Buffer.concat(parts);
}

/** Decode an MSSP payload (used by tests and crawlers): name -> values. */
export function decodeMssp(payload: Buffer): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let name: string | null = null;
  let i = 0;
  while (i < payload.length) {
    const kind = payload[i++];
    let j = i;
    while (j < payload.length && payload[j] !== MSSP_VAR && payload[j] !== MSSP_VAL) j++;
    const text = payload.subarray(i, j).toString('utf8');
    if (kind === MSSP_VAR) {
      name = text;
      out[name] ??= [];
    } else if (kind === MSSP_VAL && name !== null) {
      out[name]!.push(text);
    }
    i = j;
  }
  return out;
}

/** The plain-text MSSP reply, for a crawler that sends the line "MSSP-REQUEST". */
export function msspText(vars: Record<string, string | string[]>): string {
  const lines = ['MSSP-REPLY-START'];
  for (const [name, value] of Object.entries(vars)) {
    const clean = msspClean(name).replace(/[\t\r\n]/g, ' ');
    if (!clean) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) lines.push(`${clean}\t${msspClean(String(v)).replace(/[\t\r\n]/g, ' ')}`);
  }
  lines.push('MSSP-REPLY-END');
  return lines.join('\n') + '\n';
}

function msspClean(s: string): string {
  return s.replace(/[\x00\x01\x02]/g, ''); // UTF-8 never yields an IAC (0xFF) byte
}

/** GMCP payload: `Package.Name` or `Package.Name <json>`. */
export function encodeGmcp(pkg: string, data?: unknown): Buffer {
  if (!/^[A-Za-z][\w.-]*$/.test(pkg)) throw new TypeError(`GMCP package name ${JSON.stringify(pkg)} is not of the form Package.Sub.Name`);
  if (data === undefined) return Buffer.from(pkg, 'utf8');
  const json = JSON.stringify(data);
  if (json === undefined) throw new TypeError(`GMCP data for ${pkg} cannot be written as JSON`);
  return Buffer.from(`${pkg} ${json}`, 'utf8');
}

export type GmcpMessage = { ok: true; pkg: string; data: unknown } | { ok: false; message: string };

/** Decode a GMCP payload; data is undefined when the message has none. */
export function decodeGmcp(payload: Buffer): GmcpMessage {
  const text = payload.toString('utf8');
  const m = /^\s*([^\s{[]+)\s*([\s\S]*)$/.exec(text);
  if (!m || !m[1]) return { ok: false, message: 'empty GMCP message' };
  const pkg = m[1];
  if (!/^[A-Za-z][\w.-]*$/.test(pkg)) return { ok: false, message: `bad GMCP package name ${JSON.stringify(pkg.slice(0, 64))}` };
  const rest = (m[2] ?? '').trim();
  if (rest === '') return { ok: true, pkg, data: undefined };
  try {
    return { ok: true, pkg, data: JSON.parse(rest) as unknown };
  } catch {
    return { ok: false, message: `GMCP ${pkg}: data is not valid JSON` };
  }
}

/** MSDP values: strings, arrays and tables (RFC-less, see the MSDP specification). */
export type MsdpValue = string | MsdpValue[] | { [key: string]: MsdpValue };

/** Encode one MSDP variable and its value. */
export function encodeMsdp(variable: string, value: MsdpValue): Buffer {
  const parts: Buffer[] = [Buffer.of(MSDP_VAR), Buffer.from(msdpClean(variable), 'utf8')];
  appendMsdpValue(parts, value);
  return Buffer.concat(parts);
}

function appendMsdpValue(parts: Buffer[], value: MsdpValue): void {
  parts.push(Buffer.of(MSDP_VAL));
  if (typeof value === 'string') {
    parts.push(Buffer.from(msdpClean(value), 'utf8'));
  } else if (Array.isArray(value)) {
    parts.push(Buffer.of(MSDP_ARRAY_OPEN));
    for (const v of value) appendMsdpValue(parts, v);
    parts.push(Buffer.of(MSDP_ARRAY_CLOSE));
  } else {
    parts.push(Buffer.of(MSDP_TABLE_OPEN));
    for (const [k, v] of Object.entries(value)) {
      parts.push(Buffer.of(MSDP_VAR), Buffer.from(msdpClean(k), 'utf8'));
      appendMsdpValue(parts, v);
    }
    parts.push(Buffer.of(MSDP_TABLE_CLOSE));
  }
}

function msdpClean(s: string): string {
  return s.replace(/[\x00-\x06]/g, '');
}

/** Decode an MSDP payload into variable/value pairs. Nesting is limited to 16 levels; malformed input yields what parsed. */
export function decodeMsdp(payload: Buffer): Array<{ variable: string; value: MsdpValue }> {
  let i = 0;
  const n = payload.length;
  const readText = (): string => {
    const start = i;
    while (i < n && payload[i]! > MSDP_ARRAY_CLOSE) i++;
    return payload.subarray(start, i).toString('utf8');
  };
  const readValue = (depth: number): MsdpValue => {
    // positioned after MSDP_VAL
    if (i < n && payload[i] === MSDP_TABLE_OPEN && depth < 16) {
      i++;
      const table: Record<string, MsdpValue> = {};
      while (i < n && payload[i] !== MSDP_TABLE_CLOSE) {
        if (payload[i] !== MSDP_VAR) {
          i++;
          continue;
        }
        i++;
        const key = readText();
        let value: MsdpValue = '';
        while (i < n && payload[i] === MSDP_VAL) {
          i++;
          value = readValue(depth + 1);
        }
        table[key] = value;
      }
      i++;
      return table;
    }
    if (i < n && payload[i] === MSDP_ARRAY_OPEN && depth < 16) {
      i++;
      const arr: MsdpValue[] = [];
      while (i < n && payload[i] !== MSDP_ARRAY_CLOSE) {
        if (payload[i] !== MSDP_VAL) {
          i++;
          continue;
        }
        i++;
        arr.push(readValue(depth + 1));
      }
      i++;
      return arr;
    }
    return readText();
  };
  const out: Array<{ variable: string; value: MsdpValue }> = [];
  while (i < n) {
    if (payload[i] !== MSDP_VAR) {
      i++;
      continue;
    }
    i++;
    const variable = readText();
    const values: MsdpValue[] = [];
    while (i < n && payload[i] === MSDP_VAL) {
      i++;
      values.push(readValue(0));
    }
    // Several VALs after one VAR make an array (as in "REPORT" "HEALTH" "MANA").
    out.push({ variable, value: values.length === 1 ? values[0]! : values });
  }
  return out;
}

/** CHARSET REQUEST payload offering the given character sets (RFC 2066), separated by spaces. */
export function charsetRequest(charsets: string[]): Buffer {
  return Buffer.concat([Buffer.of(CHARSET_REQUEST), Buffer.from(' ' + charsets.join(' '), 'latin1')]);
}

export type CharsetMessage =
  | { kind: 'request'; charsets: string[] }
  | { kind: 'accepted'; charset: string }
  | { kind: 'rejected' }
  | { kind: 'other'; code: number };

export function parseCharset(payload: Buffer): CharsetMessage | null {
  if (payload.length < 1) return null;
  const code = payload[0]!;
  let rest = payload.subarray(1).toString('latin1');
  if (code === CHARSET_REQUEST) {
    if (rest.startsWith('[TTABLE]')) rest = rest.slice(9); // "[TTABLE]" + version byte
    if (rest.length < 2) return { kind: 'request', charsets: [] };
    const sep = rest[0]!;
    return { kind: 'request', charsets: rest.slice(1).split(sep).filter((s) => s.length > 0) };
  }
  if (code === CHARSET_ACCEPTED) return { kind: 'accepted', charset: rest.trim() };
  if (code === CHARSET_REJECTED) return { kind: 'rejected' };
  return { kind: 'other', code };
}
