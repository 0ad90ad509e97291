/**
 * `lightmud shard` and `lightmud serve --remote` as child processes, as users run them: their JSON log
 * lines collected, waited for, and the process killed or stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const BIN = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;
/** A guard against hangs, not a timing assertion. */
const WAIT_MS = 30_000;

export interface LogLine {
  level?: number;
  msg?: string;
  [key: string]: unknown;
}

export class LightmudProcess {
  output = '';
  readonly lines: LogLine[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private wakers = new Set<() => void>();

  private constructor(readonly child: ChildProcess) {
    let partial = '';
    child.stdout!.on('data', (d: Buffer) => {
      this.output += String(d);
      partial += String(d);
      const parts = partial.split('\n');
      partial = parts.pop()!;
      for (const p of parts) {
        try {
          this.lines.push(JSON.parse(p) as LogLine);
        } catch {
          // not a log line
        }
      }
      this.wake();
    });
    child.stderr!.on('data', (d: Buffer) => {
      this.output += String(d);
      this.wake();
    });
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
      resolve({ code, signal });
      this.wake();
    }));
  }

  private wake(): void {
    for (const w of [...this.wakers]) w();
  }

  static start(command: 'shard' | 'serve', args: string[]): LightmudProcess {
    const extra = command === 'serve' ? ['--log-format', 'json'] : [];
    return new LightmudProcess(spawn(process.execPath, [BIN, command, ...args, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] }));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first log line that matches; rejects if the process exits first. */
  waitFor(match: (l: LogLine) => boolean, what: string, ms = WAIT_MS): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.find(match);
        if (found) return done(() => resolve(found));
        if (!this.running) return done(() => reject(new Error(`the process exited (${this.child.exitCode ?? this.child.signalCode}) before ${what}:\n${this.output}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`timed out waiting for ${what}:\n${this.output}`))), ms);
      const done = (then: () => void) => {
        clearTimeout(timer);
        this.wakers.delete(check);
        then();
      };
      this.wakers.add(check);
      check();
    });
  }

  waitForMsg(text: string, ms?: number): Promise<LogLine> {
    return this.waitFor((l) => typeof l.msg === 'string' && l.msg.includes(text), `"${text}"`, ms);
  }

  kill9(): Promise<unknown> {
    this.child.kill('SIGKILL');
    return this.exited;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(t);
  }
}

/** A shard of `world` on the bus and database given; resolves once it serves the bus. */
export async function startShard(args: { bus: string; db: string; world: string; worldFile?: string; extra?: string[] }): Promise<LightmudProcess> {
  const p = LightmudProcess.start('shard', ['--bus', args.bus, '--db', args.db, '--world-id', args.world, ...(args.worldFile ? ['--world', args.worldFile] : []), ...(args.extra ?? [])]);
  await p.waitForMsg('serving the world on the bus');
  return p;
}
