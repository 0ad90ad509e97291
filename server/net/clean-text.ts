/**
 * Text that players send, cleaned before anyone else sees it, on every path (websocket commands, telnet
 * lines, server commands such as @kick's reason, and Host.submit for every driver):
 *
 * - bidirectional overrides, embeddings and isolates (U+202A-202E, U+2066-2069) and marks (U+200E/200F,
 *   U+061C), which can make a line read differently from what it says;
 * - zero-width and other invisible format characters (U+200B-200D, U+2060-2064, U+FEFF, every other
 *   Unicode Cf), which can hide text or make two names look alike;
 * - control characters (C0, DEL, C1: Cc), including ESC, so nobody can send terminal escape sequences to
 *   telnet players; tab, line and paragraph separators become a space;
 * - unpaired surrogates (not text).
 *
 * Removed, not refused: what is left is said. Pure.
 */
import { stripAnsi } from './telnet/text.js';

const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}]/gu;
const SPACES = /[\t\u2028\u2029]/g;

export function cleanText(text: string): string {
  // Fast path: printable ASCII.
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  return stripAnsi(text).replace(SPACES, ' ').replace(INVISIBLE, '');
}
