/**
 * The server's console log: pino's JSON lines as they are when stdout is a file or a pipe (for log
 * collectors), or one short line a record on a terminal: time, level, message, then the fields as
 * key=value (pid, hostname and the fastify request id left out). Colour only on a colour terminal.
 */

export type LogFormat = 'pretty' | 'json';

/** pino's numeric levels. */
const LEVELS: Record<number, { name: string; colour: string }> = {
  10: { name: 'TRACE', colour: '\x1b[90m' },
  20: { name: 'DEBUG', colour: '\x1b[36m' },
  30: { name: 'INFO ', colour: '\x1b[32m' },
  40: { name: 'WARN ', colour: '\x1b[33m' },
  50: { name: 'ERROR', colour: '\x1b[31m' },
  60: { name: 'FATAL', colour: '\x1b[41;97m' },
};
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';
/** Fields every record has, or that say nothing on a console. */
const LEFT_OUT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'reqId']);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (v === undefined) return 'undefined';
  return JSON.stringify(v);
}

function clock(time: unknown): string {
  const d = typeof time === 'number' ? new Date(time) : new Date();
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/**
 * One pino JSON line as a short console line. A line that is not a JSON object comes back as it was.
 * A field holding a stack trace (a string with line breaks) is printed after the line, indented.
 */
export function prettyLine(line: string, colour = false): string {
  let rec: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return line;
    rec = parsed as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = LEVELS[rec.level as number] ?? { name: String(rec.level ?? '?').toUpperCase().padEnd(5), colour: '' };
  const fields: string[] = [];
  const blocks: string[] = [];
  const msg = typeof rec.msg === 'string' ? rec.msg : '';
  for (const [k, v] of Object.entries(rec)) {
    if (LEFT_OUT.has(k)) continue;
    // what the message already says (the address in "listening at ...") is not said twice
    if ((typeof v === 'string' || typeof v === 'number') && String(v).length >= 4 && msg.includes(String(v))) continue;
    if (typeof v === 'string' && v.includes('\n')) blocks.push(`${k}:\n${v.replace(/^/gm, '    ')}`);
    else if (v && typeof v === 'object' && typeof (v as { stack?: unknown }).stack === 'string') blocks.push(`${k}:\n${String((v as { stack: string }).stack).replace(/^/gm, '    ')}`);
    else fields.push(`${k}=${value(v)}`);
  }
  const time = clock(rec.time);
  const head = colour
    ? `${DIM}${time}${RESET} ${level.colour}${level.name}${RESET} ${msg}${fields.length ? ` ${DIM}${fields.join(' ')}${RESET}` : ''}`
    : `${time} ${level.name} ${msg}${fields.length ? ` ${fields.join(' ')}` : ''}`;
  return [head.replace(/ +$/, ''), ...blocks].join('\n');
}

/** A stream for pino (fastify's `logger.stream`) that writes `prettyLine`s to `out`. */
export function prettyStream(out: { write(s: string): unknown }, colour: boolean): { write(s: string): void } {
  let partial = '';
  return {
    write(chunk: string) {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const l of lines) if (l) out.write(`${prettyLine(l, colour)}\n`);
    },
  };
}

/** pretty on a terminal, json when stdout is piped or a file; `LIGHTMUD_LOG_FORMAT` or --log-format decides otherwise. */
export function chooseLogFormat(asked: string | undefined, stdout: { isTTY?: boolean }): LogFormat {
  if (asked === 'pretty' || asked === 'json') return asked;
  return stdout.isTTY ? 'pretty' : 'json';
}

/** Colour when the terminal can show it: not with NO_COLOR set, nor on a dumb terminal. */
export function wantsColour(stdout: { isTTY?: boolean; hasColors?: () => boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(stdout.isTTY) && (stdout.hasColors?.() ?? env.TERM !== 'dumb');
}
