/** Telnet command bytes (RFC 854) and the option numbers this server knows (RFC 855 and the MUD protocols). */

export const IAC = 255;
export const DONT = 254;
export const DO = 253;
export const WONT = 252;
export const WILL = 251;
export const SB = 250;
export const GA = 249;
export const EL = 248;
export const EC = 247;
export const AYT = 246;
export const AO = 245;
export const IP = 244;
export const BRK = 243;
export const DM = 242;
export const NOP = 241;
export const SE = 240;
export const EOR_CMD = 239;

export type Verb = typeof WILL | typeof WONT | typeof DO | typeof DONT;

/** Option numbers. */
export const OPT = {
  BINARY: 0,
  ECHO: 1,
  SGA: 3,
  STATUS: 5,
  TIMING_MARK: 6,
  TTYPE: 24,
  EOR: 25,
  NAWS: 31,
  LINEMODE: 34,
  NEW_ENVIRON: 39,
  CHARSET: 42,
  MSDP: 69,
  MSSP: 70,
  MCCP1: 85,
  MCCP2: 86,
  MCCP3: 87,
  MXP: 91,
  GMCP: 201,
} as const;

/** Sub-negotiation codes. */
export const TTYPE_IS = 0;
export const TTYPE_SEND = 1;
export const MSSP_VAR = 1;
export const MSSP_VAL = 2;
export const MSDP_VAR = 1;
export const MSDP_VAL = 2;
export const MSDP_TABLE_OPEN = 3;
export const MSDP_TABLE_CLOSE = 4;
export const MSDP_ARRAY_OPEN = 5;
export const MSDP_ARRAY_CLOSE = 6;
export const CHARSET_REQUEST = 1;
export const CHARSET_ACCEPTED = 2;
export const CHARSET_REJECTED = 3;
export const CHARSET_TTABLE_IS = 4;
export const CHARSET_TTABLE_REJECTED = 5;

const OPTION_NAMES = new Map<number, string>(Object.entries(OPT).map(([k, v]) => [v, k]));
const VERB_NAMES: Record<number, string> = { [WILL]: 'WILL', [WONT]: 'WONT', [DO]: 'DO', [DONT]: 'DONT' };

/** "GMCP", "NAWS", or the number for options without a name here. */
export function optionName(option: number): string {
  return OPTION_NAMES.get(option) ?? String(option);
}

export function verbName(verb: number): string {
  return VERB_NAMES[verb] ?? String(verb);
}
