/**
 * What the agents need of the host that runs the world: its worker's views of a character, the
 * driver seats, and command submission. The host (server/host/host.ts) implements it; the agents
 * import only this, so the dependency runs one way, host -> agents.
 */
import type { Driver } from '../host/driver.js';
import type { CharacterInfo, HostConfig, OpenInfo, SubmitResult } from '../host/types.js';
import type { AgentView, ViewOptions } from './view.js';

export interface AgentHost {
  readonly config: HostConfig;
  /** The open world (its source, for the corpus world and the tuning). */
  readonly info: OpenInfo;
  agentView(characterId: string, opts?: ViewOptions): Promise<AgentView | null>;
  driverOf(characterId: string): Driver | undefined;
  attach(characterId: string, driver: Driver): void;
  detach(characterId: string, driver: Driver): void;
  release(characterId: string, reason: string, rechoose?: boolean): boolean;
  submit(characterId: string, input: string, account?: string | null, opts?: { validOnly?: boolean; cause?: string }): Promise<SubmitResult>;
  characters(): Promise<CharacterInfo[]>;
}
