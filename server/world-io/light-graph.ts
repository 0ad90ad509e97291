/**
 * Import and export of LIGHT's graph-JSON world format (the maps of LIGHT's repository:
 * `nodes` keyed by node id with room / agent / object flags, `contained_nodes`,
 * `container_node`, `neighbors`, and object affordances).
 */
import { WorldFileError } from '../engine/world-file.js';
import type { NodeId, WorldState } from '../engine/types.js';

export function isLightGraph(data: unknown): data is { nodes: Record<string, unknown> } {
  return typeof data === 'object' && data !== null && 'nodes' in data && typeof (data as { nodes: unknown }).nodes === 'object' && !('format' in data);
}

export function importLightGraph(_data: { nodes: Record<string, unknown> }, opts: { file: string; seed?: number; title?: string }): { state: WorldState; start: NodeId | null } {
  throw new WorldFileError([{ file: opts.file, entity: '(file)', field: '(format)', message: 'LIGHT graph import is being written' }]);
}
