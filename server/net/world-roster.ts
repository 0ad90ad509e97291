/**
 * The other worlds on the bus, as their presence messages tell of them: each world says it is here
 * at start, when it hears of a world it did not know, and every heartbeat; and gone when it closes.
 * A world that falls silent (killed, cut off) stays listed (who asks it, and names it as not
 * answering) until it has been silent for `forgetMs`; a world that said it is gone is listed as gone
 * for as long.
 */
import type { Presence } from './cross-world-messages.js';

export interface RosterEntry {
  world: string;
  title: string;
  state: 'here' | 'gone';
  /** When it last said anything (ms since the epoch). */
  heardAt: number;
}

export class WorldRoster {
  private entries = new Map<string, RosterEntry>();

  constructor(private readonly self: string, private readonly forgetMs: number) {}

  /** Note a presence message; true when the world is new to the roster (or back after saying it was gone). */
  heard(p: Presence, now = Date.now()): boolean {
    if (p.world === this.self) return false;
    const before = this.entries.get(p.world);
    this.entries.set(p.world, { world: p.world, title: p.title, state: p.kind, heardAt: now });
    return p.kind === 'here' && (!before || before.state === 'gone');
  }

  /** The other worlds, by id; those silent for longer than forgetMs are forgotten. */
  others(now = Date.now()): RosterEntry[] {
    for (const [id, e] of this.entries) if (now - e.heardAt > this.forgetMs) this.entries.delete(id);
    return [...this.entries.values()].sort((a, b) => a.world.localeCompare(b.world));
  }
}
