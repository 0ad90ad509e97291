/** A crowd worker's page as a program (real websocket), and a test server with the crowd room. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { CrowdClientFrame, CrowdServerFrame } from '../../server/crowd/protocol.js';
import { ScriptPartner, type Partner } from '../../server/crowd/partners.js';
import { validateTask, type CrowdTask } from '../../server/crowd/task.js';
import type { ServerOptions } from '../../server/net/limits.js';
import { startTestServer, type TestServer } from '../server/helpers.js';

const WAIT_MS = 10_000;

export const SCRIPT_LINES = [
  { say: 'Hello there, who are you?', emote: 'wave' },
  { say: 'I have been waiting here all day.' },
  { say: 'It is a fine day for the garden.', emote: 'smile' },
  { say: 'Well, I must be going now.' },
];

export function scriptPartner(): Partner {
  return new ScriptPartner(SCRIPT_LINES, 'test-script');
}

export function taskSpec(world: string, over: Partial<CrowdTask> = {}): CrowdTask {
  return validateTask({
    id: 'garden-chat', title: 'Chat in the garden', world, locations: ['garden', 'shed'], personas: ['kitty', 'orc', 'gardener', 'ghost'],
    turns: 4, turnSeconds: 60, warningSeconds: 10, reward: '$1.00 for about five minutes', maxConcurrentPairs: 5, maxUnitsPerWorker: 3,
    modelFallbackSeconds: null, partnerDrop: 'replace_with_model', partnerDropSeconds: 60, ...over,
  });
}

/** A server with the crowd room (scripted partner, fast sweep) and a task. */
export async function startCrowdServer(task: Partial<CrowdTask> = {}, opts: Partial<ServerOptions> = {}): Promise<TestServer & { task: CrowdTask }> {
  const server = await startTestServer({ crowd: { partner: scriptPartner, tickMs: 100 }, ...opts });
  const spec = taskSpec(server.world, task);
  server.crowd!.store.createTask(spec);
  return Object.assign(server, { task: spec });
}

export function writeTaskFile(dir: string, spec: Record<string, unknown>): string {
  const file = join(dir, 'task.json');
  writeFileSync(file, JSON.stringify(spec, null, 2));
  return file;
}

export class CrowdClient {
  readonly frames: CrowdServerFrame[] = [];
  private cursor = 0;
  private listeners = new Set<() => void>();
  closed = false;
  /** A guard against hangs, not a timing assertion. */
  waitMs = WAIT_MS;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      this.frames.push(JSON.parse(String(d)) as CrowdServerFrame);
      for (const l of [...this.listeners]) l();
    });
    ws.on('close', () => {
      this.closed = true;
      for (const l of [...this.listeners]) l();
    });
    ws.on('error', () => {});
  }

  static async join(server: TestServer, task: string, worker: string): Promise<CrowdClient> {
    const ws = new WebSocket(`ws://127.0.0.1:${server.httpPort}/crowd/ws`);
    // Listen from the start: a refused connection says why in its first frame, then closes.
    const c = new CrowdClient(ws);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    if (ws.readyState === ws.OPEN) c.send({ type: 'join', task, worker });
    return c;
  }

  send(f: CrowdClientFrame): void {
    this.ws.send(JSON.stringify(f));
  }

  next<K extends CrowdServerFrame['type']>(type: K, match: (f: Extract<CrowdServerFrame, { type: K }>) => boolean = () => true): Promise<Extract<CrowdServerFrame, { type: K }>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        for (let i = this.cursor; i < this.frames.length; i++) {
          const f = this.frames[i]!;
          if (f.type === type && match(f as Extract<CrowdServerFrame, { type: K }>)) {
            this.cursor = i + 1;
            return f as Extract<CrowdServerFrame, { type: K }>;
          }
        }
        if (this.closed) throw new Error(`closed while waiting for ${type}`);
        return undefined;
      };
      const done = (f: Extract<CrowdServerFrame, { type: K }>) => {
        clearTimeout(timer);
        this.listeners.delete(wake);
        resolve(f);
      };
      const wake = () => {
        try {
          const f = check();
          if (f) done(f);
        } catch (err) {
          clearTimeout(timer);
          this.listeners.delete(wake);
          reject(err);
        }
      };
      const timer = setTimeout(() => {
        this.listeners.delete(wake);
        reject(new Error(`timed out waiting for a ${type} frame; got ${JSON.stringify(this.frames.slice(this.cursor).map((f) => f.type))}`));
      }, this.waitMs);
      this.listeners.add(wake);
      wake();
    });
  }

  /** Whether it is my turn now: the last turn frame was mine and no turn of mine was accepted since. */
  myTurn(): boolean {
    let turn = -1;
    let accepted = -1;
    this.frames.forEach((f, i) => {
      if (f.type === 'turn') turn = f.yours ? i : -1;
      if (f.type === 'accepted') accepted = i;
    });
    return turn > accepted;
  }

  private until(what: string, check: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(wake);
        reject(new Error(`timed out waiting for ${what}`));
      }, this.waitMs);
      const wake = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.listeners.delete(wake);
        resolve();
      };
      this.listeners.add(wake);
      wake();
    });
  }

  /** Wait for my turn, send one; resolves with the answer (accepted or refused). */
  async turn(say: string, act?: string): Promise<CrowdServerFrame> {
    await this.until('my turn', () => this.myTurn());
    const start = this.frames.length;
    this.send(act ? { type: 'turn', say, act } : { type: 'turn', say });
    await this.until('an answer to my turn', () => this.frames.slice(start).some((x) => x.type === 'accepted' || x.type === 'refused'));
    return this.frames.slice(start).find((x) => x.type === 'accepted' || x.type === 'refused')!;
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}
