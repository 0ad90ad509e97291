/**
 * Training and evaluation examples from written episodes: the conversion lives with the episodes
 * (server/episodes/examples.ts), since the server exports ParlAI files too; training reads it here.
 */
export * from '../../server/episodes/examples.js';
