/**
 * The pairing queue of one task: workers wait in arrival order; two waiting workers are paired
 * first come, first served; a worker who has waited longer than the model fallback is paired with
 * a model character. Pure: the room (room.ts) calls `plan` whenever something changes (a worker
 * arrives or leaves, an episode ends) and once a second, so a waiting worker is never forgotten.
 */
export interface Waiting {
  worker: string;
  since: number;
}

export interface PairPlan {
  /** Two workers to pair, oldest first. */
  pairs: [string, string][];
  /** Workers to pair with a model character. */
  withModel: string[];
}

export class PairingQueue {
  private list: Waiting[] = [];

  get size(): number {
    return this.list.length;
  }

  has(worker: string): boolean {
    return this.list.some((w) => w.worker === worker);
  }

  /** Join (or stay at the same place when already waiting). */
  add(worker: string, now: number): void {
    if (!this.has(worker)) this.list.push({ worker, since: now });
  }

  remove(worker: string): void {
    this.list = this.list.filter((w) => w.worker !== worker);
  }

  /** Place in the queue, 1-based (0: not waiting). */
  position(worker: string): number {
    return this.list.findIndex((w) => w.worker === worker) + 1;
  }

  waitingSince(worker: string): number | undefined {
    return this.list.find((w) => w.worker === worker)?.since;
  }

  /**
   * Who to start now, within `slots` free episodes: pairs of workers first, then workers who have
   * waited `fallbackMs` or more with a model (null: never). Those planned leave the queue.
   */
  plan(now: number, slots: number, fallbackMs: number | null): PairPlan {
    const out: PairPlan = { pairs: [], withModel: [] };
    while (slots > 0 && this.list.length >= 2) {
      const [a, b] = this.list.splice(0, 2);
      out.pairs.push([a!.worker, b!.worker]);
      slots--;
    }
    if (fallbackMs !== null) {
      while (slots > 0 && this.list.length && now - this.list[0]!.since >= fallbackMs) {
        out.withModel.push(this.list.shift()!.worker);
        slots--;
      }
    }
    return out;
  }

  /** Put planned workers back at the front (a pair could not be cast: no free location or persona). */
  putBack(workers: Waiting[]): void {
    this.list = [...workers, ...this.list.filter((w) => !workers.some((x) => x.worker === w.worker))];
  }
}
