/**
 * Websocket players for the cluster tests: one command and the frame that answers it, and a player
 * who keeps playing (a `say` every so often) and remembers what was acknowledged and what it was told.
 */
import type { ServerFrame } from '../../server/net/protocol.js';
import type { WsClient } from '../server/helpers.js';

/** Send a command; the frame that answers it: its result observation, or an error. */
export async function attempt(c: WsClient, text: string, id: string): Promise<ServerFrame> {
  c.send({ type: 'command', text, id });
  return c.next((f) => (f.type === 'observation' || f.type === 'error') && 'id' in f && f.id === id, `the answer to "${text}"`);
}

/** A player saying numbered lines, one at a time, every `gapMs` (under the portal's 8 commands a second). */
export class SayingPlayer {
  readonly acked: { seq: number; text: string }[] = [];
  /** What the player was told instead of a result (error frames), with their codes. */
  readonly told: { code: string; message: string }[] = [];
  private n = 0;
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(readonly client: WsClient, readonly name: string, private gapMs = 150) {}

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        const text = `say ${this.name} line ${++this.n}`;
        const f = await attempt(this.client, text, `${this.name}-${this.n}`);
        if (f.type === 'observation' && f.kind === 'result') this.acked.push({ seq: f.seq!, text });
        else if (f.type === 'error') this.told.push({ code: f.code, message: f.message });
        await new Promise((r) => setTimeout(r, this.gapMs));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** Resolves once `more` further commands have been acknowledged (rejects after `ms`). */
  async ackedMore(more: number, ms = 30_000): Promise<void> {
    const target = this.acked.length + more;
    const t0 = Date.now();
    while (this.acked.length < target) {
      if (Date.now() - t0 > ms) throw new Error(`${this.name}: ${this.acked.length} acknowledged, waiting for ${target}; told ${JSON.stringify(this.told.slice(-3))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
