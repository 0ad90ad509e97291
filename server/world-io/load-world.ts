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

/** The .json world files of a directory, world.json first, then by name. */
function worldFilesIn(path: string): string[] {
  return readdirSync(path).filter((n) => n.endsWith('.json') && !n.endsWith('.schema.json')).sort((a, b) => (a === 'world.json' ? -1 : b === 'world.json' ? 1 : a.localeCompare(b))).map((n) => join(path, n));
}

/**
 * A world from disk. PATH is a lightmud world file, a directory of them, a LIGHT graph-JSON map, or
 * several lightmud files or directories joined by commas, merged into one world (the corpus world
 * is the bundled world plus the corpus-only settings: `world-data/default,world-data/settings`).
 */
export function loadWorld(path: string, opts: { seed?: number } = {}): LoadedWorld {
  if (path.includes(',')) {
    const files = path.split(',').filter(Boolean).flatMap((p) => {
      let dir: boolean;
      try {
        dir = statSync(p).isDirectory();
      } catch {
        throw new WorldFileError([{ file: p, entity: '(file)', field: '(file)', message: 'no such file or directory' }]);
      }
      return dir ? worldFilesIn(p) : [p];
    }).map((file) => ({ file, data: readJson(file) }));
    const { state, start } = buildWorldState(files, opts);
    return { state, start, format: 'lightmud', files: files.map((f) => f.file) };
  }
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new WorldFileError([{ file: path, entity: '(file)', field: '(file)', message: 'no such file or directory' }]);
  }
  if (isDir) {
    const names = worldFilesIn(path);
    if (!names.length) throw new WorldFileError([{ file: path, entity: '(directory)', field: '(files)', message: 'no .json world files in this directory' }]);
    const files = names.map((file) => ({ file, data: readJson(file) }));
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

/**
 * Rooms, characters and objects that exist only for the written corpus (settings of the kinds LIGHT
 * has, beyond the bundled world); not part of the world that `npm start` serves.
 */
export const CORPUS_SETTINGS = new URL('../../world-data/settings', import.meta.url).pathname;

/** The world the written corpus is set in: the bundled world plus the corpus-only settings. */
export const CORPUS_WORLD = `${DEFAULT_WORLD},${CORPUS_SETTINGS}`;
