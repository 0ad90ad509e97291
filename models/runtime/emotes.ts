/**
 * LIGHT's 22 emotes, the candidates of the emote task. Same spelling and order as the engine's
 * list (server/engine/emotes.ts); a test checks they stay identical.
 */
export const EMOTES = [
  'applaud', 'blush', 'cry', 'dance', 'frown', 'gasp', 'grin', 'groan', 'growl', 'laugh', 'nod',
  'nudge', 'ponder', 'pout', 'scream', 'shrug', 'sigh', 'smile', 'stare', 'wave', 'wink', 'yawn',
] as const;

export type EmoteName = (typeof EMOTES)[number];
