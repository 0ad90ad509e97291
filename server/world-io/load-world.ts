/**
 * Reads a world from disk: a lightmud world file, a directory of lightmud world files, or a map
 * in LIGHT's graph-JSON format (detected by its shape). Every failure names the file.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { buildWorldState, WorldFileError } from '../engine/world-file.js';
import type { NodeId, WorldState } from '../engine/types.js';
import { isLightGraph, importLightGraph } from './light-graph.js';

export interface LoadedWorld {
  state: WorldState;
  /** Room where new guests arrive. */
  start: NodeId | null;
  format: 'lightmud' | 'light-graph';
  files: string[];
}

const MAX_FILE_BYTES = 64 * 1024 * 1024;

function readJson(file: string): unknown {
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_FILE_BYTES) throw new Error(`file is ${size} bytes; the limit is ${MAX_FILE_BYTES}`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new WorldFileError([{ file, entity: '(file)', field: '(file)', message: `cannot read: ${(err as Error).message}` }]);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new WorldFileError([{ file, entity: '(file)', field: '(json)', message: `not valid JSON: ${(err as Error).message}` }]);
  }
}

export function loadWorld(path: string, opts: { seed?: number } = {}): LoadedWorld {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new WorldFileError([{ file: path, entity: '(file)', field: '(file)', message: 'no such file or directory' }]);
  }
  if (isDir) {
    const names = readdirSync(path).filter((n) => n.endsWith('.json') && !n.endsWith('.schema.json')).sort((a, b) => (a === 'world.json' ? -1 : b === 'world.json' ? 1 : a.localeCompare(b)));
    if (!names.length) throw new WorldFileError([{ file: path, entity: '(directory)', field: '(files)', message: 'no .json world files in this directory' }]);
    const files = names.map((n) => ({ file: join(path, n), data: readJson(join(path, n)) }));
    const { state, start } = buildWorldState(files, opts);
    return { state, start, format: 'lightmud', files: files.map((f) => f.file) };
  }
  const data = readJson(path);
  if (isLightGraph(data)) {
    const { state, start } = importLightGraph(data, { file: path, seed: opts.seed, title: basename(path, '.json') });
    return { state, start, format: 'light-graph', files: [path] };
  }
  const { state, start } = buildWorldState([{ file: path, data }], opts);
  return { state, start, format: 'lightmud', files: [path] };
}

/** The bundled default world. */
export const DEFAULT_WORLD = new URL('../../world-data/default', import.meta.url).pathname;
