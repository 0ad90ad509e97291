/**
 * ANSI colour for telnet players: room names, exits and speech. Colour is off unless the client says it
 * shows colour (its terminal type, or MTTS's ANSI bit, in TTYPE) or the player types `color on`; the
 * telnet layer strips these codes again when colour is off (server/net/telnet/text.ts).
 */

export const RESET = '\x1b[0m';
export const ROOM_NAME = '\x1b[1;36m';
export const EXITS = '\x1b[32m';
export const SPEECH = '\x1b[33m';

/** MTTS bit 1: the client shows ANSI colour. */
const MTTS_ANSI = 1;
/** Terminal types and MUD clients that show ANSI colour (a dumb terminal, vt100 and unknown names do not). */
const COLOUR_TERMINALS = /ansi|xterm|colou?r|^linux$|screen|tmux|rxvt|putty|konsole|alacritty|kitty|mudlet|tintin|mushclient|zmud|cmud|blowtorch|mudrammer/i;

/** Whether a client's TTYPE answers say it shows ANSI colour. */
export function clientShowsColour(terminalTypes: readonly string[], mtts: number | null): boolean {
  if (mtts !== null) return (mtts & MTTS_ANSI) !== 0;
  return terminalTypes.some((t) => !/^MTTS\s/i.test(t) && COLOUR_TERMINALS.test(t));
}

/** A spoken line as the engine words it: `The orc says, "..."`, `You tell the kitty, "..."`, `Someone shouts from ..., "..."`. */
const SPEECH_RE = /^([^"\n]*\b(?:say|says|tell|tells|whisper|whispers|shout|shouts)\b[^"\n]*?, )("[\s\S]*")$/;

/**
 * Colour a message of the game: in a room's description (its name, the description, then the `Exits:` line
 * with where each leads) the name, and every `Exits:` line; a message that is speech, its spoken words.
 */
export function colourGameText(text: string): string {
  const speech = SPEECH_RE.exec(text);
  if (speech) return `${speech[1]}${SPEECH}${speech[2]}${RESET}`;
  if (!text.includes('Exits: ')) return text;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!line.startsWith('Exits: ')) return;
    lines[i] = `${EXITS}${line}${RESET}`;
    if (i >= 2 && line.endsWith(').') && lines[i - 2] && !lines[i - 2]!.includes('\x1b')) lines[i - 2] = `${ROOM_NAME}${lines[i - 2]}${RESET}`;
  });
  return lines.join('\n');
}

export const TELNET_HELP = [
  'Telnet:',
  '  color on|off      ANSI colour for room names, exits and speech (colour, too; on when your client says it',
  '                    shows colour, else off)',
  '  prompt on|off     the "> " prompt after each output (on)',
].join('\n');
