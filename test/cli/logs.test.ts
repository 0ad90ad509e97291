/**
 * The server's console log: pretty and short on a terminal, pino's JSON lines when piped. The format
 * function on records pino writes, and `lightmud serve` as a child process, piped and on a pty.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { chooseLogFormat, prettyLine, prettyStream, wantsColour } from '../../server/net/log-format.js';
import { LITTLE_WORLD } from '../fixtures/little-world.js';

const BIN = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;
const ESC = '\x1b[';

describe('prettyLine', () => {
  it('turns what pino writes into one short line: time, level, message, the other fields', () => {
    const lines: string[] = [];
    const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(s) });
    log.info({ world: 'Little world', rooms: 3, source: '/a b/w.json' }, 'world loaded');
    log.warn({ signal: 'SIGINT' }, 'second signal');
    log.error({ err: 'Error: boom\n    at f (x.ts:1:1)' }, 'unhandled rejection');
    log.info({ event: 'listening', http: 'http://127.0.0.1:3000/' }, 'up: http://127.0.0.1:3000/');
    expect(lines).toHaveLength(4);
    const [a, b, c, d] = lines.map((l) => prettyLine(l.trimEnd()));
    expect(a).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  world loaded world="Little world" rooms=3 source="\/a b\/w.json"$/);
    expect(a).not.toMatch(/pid|hostname/);
    expect(b).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN  second signal signal=SIGINT$/);
    // a stack goes under the line, indented
    expect(c!.split('\n')).toEqual([expect.stringMatching(/ERROR unhandled rejection$/), 'err:', '    Error: boom', '        at f (x.ts:1:1)']);
    // a field the message already says is not repeated
    expect(d).toMatch(/INFO  up: http:\/\/127\.0\.0\.1:3000\/ event=listening$/);
    expect(prettyLine('not json')).toBe('not json');
    expect(prettyLine(lines[1]!.trimEnd(), true)).toContain(`${ESC}33mWARN `);
  });

  it('streams: lines split across writes come out whole', () => {
    const out: string[] = [];
    const s = prettyStream({ write: (x: string) => out.push(x) }, false);
    const rec = JSON.stringify({ level: 30, time: 0, msg: 'hello', n: 1 });
    s.write(rec.slice(0, 10));
    expect(out).toEqual([]);
    s.write(`${rec.slice(10)}\n${rec}\n`);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/INFO  hello n=1\n$/);
  });

  it('chooses pretty on a terminal and json otherwise, unless told; colour only where it shows', () => {
    expect(chooseLogFormat(undefined, { isTTY: true })).toBe('pretty');
    expect(chooseLogFormat(undefined, { isTTY: false })).toBe('json');
    expect(chooseLogFormat(undefined, {})).toBe('json');
    expect(chooseLogFormat('json', { isTTY: true })).toBe('json');
    expect(chooseLogFormat('pretty', {})).toBe('pretty');
    expect(wantsColour({ isTTY: true, hasColors: () => true }, {})).toBe(true);
    expect(wantsColour({ isTTY: true, hasColors: () => true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour({ isTTY: true, hasColors: () => false }, {})).toBe(false);
    expect(wantsColour({ isTTY: false }, {})).toBe(false);
  });
});

describe('lightmud serve logs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-logs-'));
  const world = join(dir, 'little-world.json');
  writeFileSync(world, JSON.stringify(LITTLE_WORLD));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  /** Run the server until it says it is up, then SIGINT it; returns everything it wrote. */
  function serve(extra: string[], viaPty = false): Promise<string> {
    const args = [BIN, 'serve', '--world', world, '--db', join(dir, `t${n++}.db`), '--http-port', '0', '--telnet-port', '0', '--host', '127.0.0.1', ...extra];
    const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
    const child = viaPty
      ? spawn('script', ['-qefc', [process.execPath, ...args].map(quote).join(' '), '/dev/null'], { detached: true, env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', TERM: 'xterm-256color' } })
      : spawn(process.execPath, args, { detached: true, env: { ...process.env, LIGHTMUD_LOG_FORMAT: '' } });
    let out = '';
    return new Promise((resolve, reject) => {
      const guard = setTimeout(() => {
        process.kill(-child.pid!, 'SIGKILL');
        reject(new Error(`no "lightmud is up" in:\n${out}`));
      }, 60_000);
      let signalled = false;
      child.stdout.on('data', (d: Buffer) => {
        out += String(d);
        const up = /lightmud is up: browser http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
        if (!signalled && up) {
          signalled = true;
          // an answer means start-up has finished (its signal handlers are set): then stop it
          fetch(`http://127.0.0.1:${up[1]}/healthz`).then(
            () => process.kill(-child.pid!, 'SIGINT'),
            () => process.kill(-child.pid!, 'SIGINT'),
          );
        }
      });
      child.stderr.on('data', (d: Buffer) => (out += String(d)));
      child.on('exit', () => {
        clearTimeout(guard);
        resolve(out);
      });
    });
  }

  it('writes JSON lines when piped', async () => {
    const out = await serve([]);
    const lines = out.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow();
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain('stopped; state saved');
  }, 90_000);

  it('writes short lines with --log-format pretty, and on a terminal, in colour', async () => {
    const piped = await serve(['--log-format', 'pretty']);
    expect(piped).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  lightmud is up: .* event=listening$/m);
    expect(piped).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  stopped; state saved$/m);
    expect(piped).not.toContain(ESC);
    expect(piped).not.toContain('"level"');
    if (spawnSync('script', ['--version']).status !== 0) return; // util-linux's script gives the pty
    const tty = await serve([], true);
    expect(tty).toContain(`${ESC}32mINFO `);
    expect(tty).toContain('lightmud is up');
    expect(tty).not.toContain('"level"');
  }, 120_000);

  it('refuses an unknown --log-format', () => {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--log-format', 'xml'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--log-format is pretty or json, not "xml"');
  });
});
