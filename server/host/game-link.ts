/**
 * The network side's end of the game's transport (server/host/host.ts talks through one): a worker
 * thread of this process (worker-link.ts, the default) or a shard process over the bus
 * (server/cluster/shard-link.ts). Either carries HostRequests and brings back their answers, the
 * states and logs the game sends unasked, and (from a shard shared by several portals) what the
 * players of this portal perceived of other portals' commands.
 */
import type { CharacterState } from '../net/protocol.js';
import type { Delivery, HostRequest, WorkerMessage } from './types.js';

export interface GameLink {
  /** Where the game runs: here, in a worker thread, or in a shard reached over the bus. */
  readonly kind: 'worker' | 'shard';
  /** Resolves once the other end can take requests; rejects if it never can. */
  readonly loaded: Promise<void>;
  /** Set while this link is being ended on purpose (its end is not a crash). */
  retiring: boolean;
  /** The other end is gone for good: calls fail at once with HostUnavailableError. */
  readonly exited: boolean;
  /** Send a request; resolves with its result, rejects with its error (HostUnavailableError when the game cannot answer). */
  call<T>(req: HostRequest): Promise<T>;
  /** End the link (and a worker thread with it). */
  retire(): Promise<void>;
}

export interface GameLinkEvents {
  /** The other end ended (a worker thread exited): the host restarts it. */
  onExit(link: GameLink, code: number, error: Error | null): void;
  /** Fresh states of characters that perceived a change in commands already answered. */
  onStates(states: Record<string, CharacterState>): void;
  /** Something the game asks the network side to log. */
  onLog(m: Extract<WorkerMessage, { type: 'log' }>): void;
  /** What characters perceived of a command another portal sent to the same shard (never of this portal's own). */
  onPerceived(deliveries: Delivery[], states: Record<string, CharacterState>, died: string[]): void;
}

export type GameLinkFactory = (events: GameLinkEvents) => GameLink;
