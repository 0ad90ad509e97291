/** Telnet protocol layer for MUD clients. See README.md beside this file. */
export { TelnetConnection, type TelnetOptions, type TelnetError, type TelnetConnectionEvents } from './connection.js';
export { TelnetParser, type TelnetEvent } from './parser.js';
export { Negotiation, type NegotiationPolicy, type NegotiationResult } from './negotiation.js';
export * as telnetCodes from './constants.js';
export {
  escapeIac,
  subnegotiation,
  negotiation,
  encodeGmcp,
  decodeGmcp,
  encodeMssp,
  decodeMssp,
  msspText,
  encodeMsdp,
  decodeMsdp,
  type MsdpValue,
} from './encode.js';
export { formatOutput, wrapLine, stripAnsi, decodeLine, LineAssembler } from './text.js';
