/**
 * Who drives a character, as the host sees it: the interface every kind of driver implements (a
 * person's connection, a model policy, a script, an outside agent), and the host's log. Imports
 * nothing but the wire types, so drivers anywhere may implement it without importing the host.
 */
import type { CharacterState, EventSummary } from '../net/protocol.js';

/** Who drives a character: a person, a model policy, a script, or an outside agent (MCP, the step API). */
export type DriverKind = 'human' | 'model' | 'script' | 'agent';

export interface Driver {
  readonly kind: DriverKind;
  /** For provenance: the name behind the kind (an agent's key name, "guest"); logged as "kind:name". */
  readonly causeName?: string;
  /** Whether to compute a fresh CharacterState for this driver whenever its character's surroundings change. */
  readonly wantsState: boolean;
  /** Model characters nearby leave this character alone: they do not answer what it says or does (a crowd episode's seats). */
  readonly quiet?: boolean;
  /** Something the character perceived of another's action. */
  perceive(text: string, event: EventSummary): void;
  /** Fresh state after a change the character perceived (when wantsState). */
  state?(state: CharacterState): void;
  /** The character's surroundings changed entirely (teleported, world reloaded): what it now sees. */
  arrive?(look: string, state: CharacterState | null): void;
  /**
   * The character was taken from this driver (kicked, gone from a reloaded world). `rechoose`: the
   * driver may pick another character (its character no longer exists).
   */
  detached(reason: string, rechoose?: boolean): void;
}

export type PerceptionListener = (characterId: string, text: string, event: EventSummary | null) => void;

export interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

