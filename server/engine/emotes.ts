/**
 * The 22 emotes of LIGHT. They change nothing in the graph; everyone in the room sees them.
 * `prep` is how a target is attached: "wave at the orc", "nudge the orc".
 */
export const EMOTES = [
  'applaud', 'blush', 'cry', 'dance', 'frown', 'gasp', 'grin', 'groan', 'growl', 'laugh', 'nod',
  'nudge', 'ponder', 'pout', 'scream', 'shrug', 'sigh', 'smile', 'stare', 'wave', 'wink', 'yawn',
] as const;

export type Emote = (typeof EMOTES)[number];

const TARGET_PREP: Partial<Record<Emote, string>> = {
  applaud: '', nudge: '', cry: 'on', dance: 'with', ponder: 'about', blush: 'at', gasp: 'at', groan: 'at',
  growl: 'at', laugh: 'at', nod: 'at', pout: 'at', scream: 'at', shrug: 'at', sigh: 'at', smile: 'at', stare: 'at',
  wave: 'at', wink: 'at', yawn: 'at', frown: 'at', grin: 'at',
};

const THIRD: Record<Emote, string> = {
  applaud: 'applauds', blush: 'blushes', cry: 'cries', dance: 'dances', frown: 'frowns', gasp: 'gasps',
  grin: 'grins', groan: 'groans', growl: 'growls', laugh: 'laughs', nod: 'nods', nudge: 'nudges',
  ponder: 'ponders', pout: 'pouts', scream: 'screams', shrug: 'shrugs', sigh: 'sighs', smile: 'smiles',
  stare: 'stares', wave: 'waves', wink: 'winks', yawn: 'yawns',
};

/** "smiles" -> "smile": LIGHT's third-person forms, as someone might type them after "emote". */
export const EMOTE_THIRD: Record<string, Emote> = Object.fromEntries(Object.entries(THIRD).map(([e, t]) => [t, e as Emote]));

export function isEmote(word: string): word is Emote {
  return (EMOTES as readonly string[]).includes(word);
}

export function emoteThirdPerson(e: Emote): string {
  return THIRD[e];
}

/** " at the orc", " the orc", "" */
export function emoteTargetPhrase(e: Emote, targetName: string | undefined): string {
  if (targetName === undefined) return '';
  const prep = TARGET_PREP[e] ?? 'at';
  return prep ? ` ${prep} ${targetName}` : ` ${targetName}`;
}

/** Player spellings of emotes that LIGHT lists under one name. */
export const EMOTE_ALIASES: Record<string, Emote> = {
  clap: 'applaud', weep: 'cry', sob: 'cry', chuckle: 'laugh', giggle: 'laugh', think: 'ponder', shriek: 'scream',
  smirk: 'grin', glare: 'stare', beam: 'smile',
};
