/**
 * The game's transport in the single-process server: a worker thread of this process
 * (worker-boot.mjs, then worker.ts), reached by messages over its port.
 */
import { Worker } from 'node:worker_threads';
import { HostUnavailableError } from './host-unavailable.js';
import type { GameLink, GameLinkEvents } from './game-link.js';
import type { HostRequest, WorkerMessage } from './types.js';

const BOOT = new URL('./worker-boot.mjs', import.meta.url);

export class WorkerLink implements GameLink {
  readonly kind = 'worker' as const;
  readonly worker: Worker;
  readonly loaded: Promise<void>;
  private pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  /** Set when we end this worker on purpose. */
  retiring = false;
  exited = false;

  constructor(events: GameLinkEvents) {
    const { onExit, onStates, onLog } = events;
    this.worker = new Worker(BOOT);
    let lastError: Error | null = null;
    this.loaded = new Promise((resolve, reject) => {
      this.worker.on('message', (raw: WorkerMessage | string) => {
        // worker.ts sends all but its log lines as JSON text.
        const m: WorkerMessage = typeof raw === 'string' ? (JSON.parse(raw) as WorkerMessage) : raw;
        if (m.type === 'loaded') return resolve();
        if (m.type === 'log') return onLog(m);
        if (m.type === 'states') return onStates(m.states);
        if (m.type === 'replies') {
          m.ids.forEach((id, i) => {
            const p = this.pending.get(id);
            if (!p) return;
            this.pending.delete(id);
            p.resolve(m.results[i]);
          });
          return;
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.ok) p.resolve(m.result);
        else p.reject(Object.assign(new Error(m.error), { stack: m.stack ?? m.error, fatal: m.fatal === true }));
      });
      this.worker.on('error', (err) => {
        lastError = err;
        reject(err);
      });
      this.worker.on('exit', (code) => {
        this.exited = true;
        reject(lastError ?? new Error(`the host worker exited with code ${code} before it loaded`));
        for (const p of this.pending.values()) p.reject(new HostUnavailableError());
        this.pending.clear();
        onExit(this, code, lastError);
      });
    });
    this.loaded.catch(() => {});
  }

  call<T>(req: HostRequest): Promise<T> {
    if (this.exited) return Promise.reject(new HostUnavailableError());
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...req, id });
    });
  }

  async retire(): Promise<void> {
    this.retiring = true;
    await this.worker.terminate();
  }
}
