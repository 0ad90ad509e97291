/**
 * The game host's cached character states, indexed by the room each state is in, so that forgetting
 * the states of the rooms a command changed costs the people in those rooms, not every cached state
 * (with 2,000 players, every command that moved something scanned all 2,000).
 */
import type { CharacterState } from '../net/protocol.js';

export class StateCache {
  private byId = new Map<string, CharacterState>();
  private byRoom = new Map<string, Set<string>>();

  get size(): number {
    return this.byId.size;
  }

  get(id: string): CharacterState | undefined {
    return this.byId.get(id);
  }

  set(id: string, state: CharacterState): void {
    this.delete(id);
    this.byId.set(id, state);
    let ids = this.byRoom.get(state.room.id);
    if (!ids) this.byRoom.set(state.room.id, (ids = new Set()));
    ids.add(id);
  }

  delete(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    const ids = this.byRoom.get(old.room.id);
    ids?.delete(id);
    if (ids && !ids.size) this.byRoom.delete(old.room.id);
  }

  /** Forget the states of everyone whose cached state is in one of `rooms`. */
  forgetRooms(rooms: Iterable<string>): void {
    for (const room of rooms) {
      const ids = this.byRoom.get(room);
      if (!ids) continue;
      for (const id of ids) this.byId.delete(id);
      this.byRoom.delete(room);
    }
  }

  clear(): void {
    this.byId.clear();
    this.byRoom.clear();
  }
}
