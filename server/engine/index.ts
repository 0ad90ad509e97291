/** The engine's public surface: the world graph, its rules, and its file format. Pure, no I/O. */
export * from './types.js';
export { World } from './world.js';
export { execute, executeIntent, validActions, sanitiseInput, cleanSpeech, MAX_INPUT_LENGTH, type Outcome } from './game.js';
export { perceive, type GameEvent } from './events.js';
export { ACTIONS, firstFailure, type ActionArgs, type ActionName, type ActionRule } from './actions/index.js';
export { MAX_WORN, MAX_WIELDED, DEFAULT_SIZE, DEFAULT_CAPACITY, sizeOf, capacityOf, loadOf, fits } from './actions/common.js';
export { EMOTES, type Emote } from './emotes.js';
export { parse, type Intent } from './parser.js';
export { buildWorldState, WorldFileError, type WorldFile } from './world-file.js';
export { look, inventory, examine, score } from './views.js';
export { Rng } from './rng.js';
export { healthOf, conditionWord, rollHit, HIT_DAMAGE, type HitRoll } from './health.js';
