/**
 * The websocket protocol: JSON frames, one per websocket message, shared by the server, the browser
 * client (clients/web) and scripted clients (clients/agent-example.ts). Plain data and a validator;
 * no I/O. Documented in server/net/README.md.
 *
 * A session: the server greets with `hello`; the client logs in (`login` as a guest or with an
 * account, `register`, or `resume` with a token), choosing a character (`choose`, or `character`
 * in the login frame); the server answers `welcome`, an `observation` (what the character sees) and
 * a `state`. Then the client sends `command`s; each is answered by an `observation` of kind
 * "result" (carrying the command's `id`, sent only once the change is durable) and a `state`.
 * What others do arrives as observations of kind "event", each followed by a fresh `state`.
 */

export const PROTOCOL_VERSION = 1;

/** A client-chosen correlation id, echoed on the frames that answer a command. */
export type FrameId = string | number;

// ---- client to server ----------------------------------------------------------------------------

export type ClientFrame =
  /** Guest play: `character` picks one (id or name); without it the server lists the free ones. */
  | { type: 'login'; guest: true; character?: string }
  /** Account play: resumes the account's last character if it is free, else asks for one. */
  | { type: 'login'; name: string; password: string; character?: string }
  | { type: 'register'; name: string; password: string; character?: string }
  /** Resume with the token of an earlier `welcome` (same character; replaces an older connection). */
  | { type: 'resume'; token: string }
  /** Choose a character after login (id or name). */
  | { type: 'choose'; character: string }
  /** Ask for the list of free characters. */
  | { type: 'characters' }
  /** One line of game input, as a player would type it ("get shovel", "say hello", "@who"). */
  | { type: 'command'; text: string; id?: FrameId }
  /** Ask for a fresh state frame. */
  | { type: 'state'; id?: FrameId }
  | { type: 'ping'; id?: FrameId }
  /** Leave: the server answers `bye` and closes. */
  | { type: 'quit' }
  /** Change the password of the account logged in to (answered by `account` {change:"password"}). */
  | { type: 'password'; old: string; new: string; id?: FrameId }
  /** Delete the account logged in to, for good (answered by `account` {change:"deleted"}, then `bye`). */
  | { type: 'delete_account'; password: string; id?: FrameId };

export type ClientFrameType = ClientFrame['type'];

// ---- server to client ----------------------------------------------------------------------------

export interface HelloFrame {
  type: 'hello';
  protocol: number;
  server: string;
  version: string;
  world: { title: string };
  /** How to log in: the frame types accepted before login. */
  login: ('login' | 'register' | 'resume')[];
  limits: Limits;
}

export interface Limits {
  /** Largest websocket message accepted; a larger one closes the connection (code 1009). */
  maxFrameBytes: number;
  /** Longest command text accepted. */
  maxCommandLength: number;
  /** Sustained commands per second per connection, and the burst allowed above it. */
  commandsPerSecond: number;
  commandBurst: number;
  /** Messages of every kind per second on one connection, and the burst above it (beyond: dropped, then disconnected). */
  framesPerSecond?: number;
  frameBurst?: number;
  /** Time to log in and choose a character before the server closes the connection. */
  loginTimeoutMs: number;
  /** Time without input after which a connection is closed (0: never). */
  idleTimeoutMs: number;
}

export interface CharacterChoice {
  id: string;
  name: string;
  /** Name of the room the character is in. */
  room: string;
}

export interface CharactersFrame {
  type: 'characters';
  /** Characters nobody drives now. */
  characters: CharacterChoice[];
}

export interface WelcomeFrame {
  type: 'welcome';
  character: { id: string; name: string };
  /** Give it back in a `resume` frame to take this character up again after a disconnect. */
  token: string;
  account: { name: string; role: Role } | null;
  /** True when this connection took over a character this session already held. */
  resumed: boolean;
}

export type Role = 'player' | 'admin';

export type ObservationKind =
  /** The reply to this connection's own command; durable when sent. */
  | 'result'
  /** Something another character did, as this character perceived it. */
  | 'event'
  /** What the character sees on arriving (login, resume, world reload). */
  | 'look'
  /** A message from the server itself (who list, admin replies, shutdown notice). */
  | 'system';

export interface ObservationFrame {
  type: 'observation';
  kind: ObservationKind;
  text: string;
  /** For kind "result": the command's id, whether it was understood and carried out, its log sequence number. */
  id?: FrameId;
  ok?: boolean;
  seq?: number;
  /** For kind "event": what happened (no other viewer's text). */
  event?: EventSummary;
}

export interface EventSummary {
  type: string;
  actor: string;
  target?: string;
  object?: string;
  container?: string;
  action?: string;
}

export interface Thing {
  id: string;
  name: string;
}

export interface ObjectView extends Thing {
  /** The node holding it: the room, a container, a surface or a character. */
  parent: string;
  rel: 'in' | 'on' | 'carried' | 'worn' | 'wielded';
}

export interface PersonView extends Thing {
  /** A connected person plays this character (otherwise nobody does, or a program). */
  player: boolean;
  /** Who drives it: a person, a model, a script, an outside agent, or nobody (null). Clients mark all but persons. */
  driver?: 'human' | 'model' | 'script' | 'agent' | null;
}

export interface RoomView {
  id: string;
  name: string;
  category: string;
  description: string;
  exits: { label: string; to: string; name: string }[];
}

/** Everything a client or an agent needs to show the character's situation and choices. */
export interface CharacterState {
  room: RoomView;
  character: Thing & { description: string; carrying: Thing[]; wearing: Thing[]; wielding: Thing[] };
  /** Objects in the room that the character can see and name, at any depth, not held by the character. */
  objects: ObjectView[];
  /** The other characters in the room. */
  people: PersonView[];
  /** Every graph action (LIGHT's canonical text) that would succeed now: "get shovel", "give apple to orc". */
  validActions: string[];
}

export interface StateFrame extends CharacterState {
  type: 'state';
  /** Set when this state answers a command or a state request. */
  id?: FrameId;
}

export type ErrorCode =
  | 'bad_json' // the message is not JSON
  | 'bad_frame' // JSON, but not a valid frame (missing or wrong fields)
  | 'unknown_type' // a frame type the server does not know
  | 'not_logged_in' // a command before login
  | 'already_logged_in' // a login frame after login
  | 'auth_failed' // wrong name or password
  | 'name_taken' // register with a name in use
  | 'bad_name' // an account name or password the server does not accept
  | 'bad_token' // resume with an unknown or expired token
  | 'no_such_character'
  | 'character_taken' // someone else drives that character
  | 'too_long' // command text over the limit
  | 'rate_limited' // too many commands or messages; this one was dropped
  | 'too_many_characters' // your address already holds as many characters as it may (link-dead ones included)
  | 'login_throttled' // too many failed logins for this account or from this address; wait and try again
  | 'registration_limited' // too many accounts registered from this address in the last hour
  | 'forbidden' // an admin command from a player
  | 'unavailable' // the game is restarting; try again
  | 'too_many_connections' // refused at connect; the connection closes
  | 'login_timeout'
  | 'idle_timeout'
  | 'internal';

export interface ErrorFrame {
  type: 'error';
  code: ErrorCode;
  message: string;
  id?: FrameId;
}

export interface ByeFrame {
  type: 'bye';
  reason: string;
}

export interface PongFrame {
  type: 'pong';
  id?: FrameId;
  time: number;
}

/** The account was changed as asked. */
export interface AccountFrame {
  type: 'account';
  change: 'password' | 'deleted';
  message: string;
  id?: FrameId;
}

export type ServerFrame = HelloFrame | CharactersFrame | WelcomeFrame | ObservationFrame | StateFrame | ErrorFrame | ByeFrame | PongFrame | AccountFrame;

// ---- validation ----------------------------------------------------------------------------------

export type ParseResult = { ok: true; frame: ClientFrame } | { ok: false; code: ErrorCode; message: string; id?: FrameId };

const MAX_FIELD = 200;

function isId(v: unknown): v is FrameId {
  return (typeof v === 'string' && v.length <= 64) || (typeof v === 'number' && Number.isFinite(v));
}

/** Parse and check one websocket message. Never throws. */
export function parseClientFrame(data: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return { ok: false, code: 'bad_json', message: 'Each message must be one JSON object, e.g. {"type":"command","text":"look"}.' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, code: 'bad_frame', message: 'A frame must be a JSON object with a "type".' };
  const f = raw as Record<string, unknown>;
  const id = isId(f.id) ? f.id : undefined;
  const bad = (message: string): ParseResult => (id === undefined ? { ok: false, code: 'bad_frame', message } : { ok: false, code: 'bad_frame', message, id });
  if (f.id !== undefined && !isId(f.id)) return bad('"id" must be a string of at most 64 characters or a number.');
  const str = (k: string, required: boolean): string | undefined | null => {
    const v = f[k];
    if (v === undefined) return required ? null : undefined;
    if (typeof v !== 'string' || v.length > MAX_FIELD) return null;
    return v;
  };
  switch (f.type) {
    case 'login': {
      const character = str('character', false);
      if (character === null) return bad('"character" must be a string.');
      if (f.guest === true) return { ok: true, frame: character ? { type: 'login', guest: true, character } : { type: 'login', guest: true } };
      const name = str('name', true);
      const password = str('password', true);
      if (!name || password == null) return bad('login needs "guest": true, or "name" and "password" strings.');
      return { ok: true, frame: character ? { type: 'login', name, password, character } : { type: 'login', name, password } };
    }
    case 'register': {
      const character = str('character', false);
      const name = str('name', true);
      const password = str('password', true);
      if (character === null || !name || password == null) return bad('register needs "name" and "password" strings (and optionally "character").');
      return { ok: true, frame: character ? { type: 'register', name, password, character } : { type: 'register', name, password } };
    }
    case 'resume': {
      const token = str('token', true);
      if (!token) return bad('resume needs a "token" string.');
      return { ok: true, frame: { type: 'resume', token } };
    }
    case 'choose': {
      const character = str('character', true);
      if (!character) return bad('choose needs a "character" string (id or name).');
      return { ok: true, frame: { type: 'choose', character } };
    }
    case 'characters':
      return { ok: true, frame: { type: 'characters' } };
    case 'command': {
      if (typeof f.text !== 'string') return bad('command needs a "text" string, e.g. {"type":"command","text":"look"}.');
      return { ok: true, frame: id === undefined ? { type: 'command', text: f.text } : { type: 'command', text: f.text, id } };
    }
    case 'state':
      return { ok: true, frame: id === undefined ? { type: 'state' } : { type: 'state', id } };
    case 'ping':
      return { ok: true, frame: id === undefined ? { type: 'ping' } : { type: 'ping', id } };
    case 'quit':
      return { ok: true, frame: { type: 'quit' } };
    case 'password': {
      const old = str('old', true);
      const next = str('new', true);
      if (old == null || next == null) return bad('password needs "old" and "new" strings.');
      return { ok: true, frame: id === undefined ? { type: 'password', old, new: next } : { type: 'password', old, new: next, id } };
    }
    case 'delete_account': {
      const password = str('password', true);
      if (password == null) return bad('delete_account needs the account\'s "password".');
      return { ok: true, frame: id === undefined ? { type: 'delete_account', password } : { type: 'delete_account', password, id } };
    }
    default: {
      const shown = typeof f.type === 'string' ? `"${f.type.slice(0, 40)}"` : 'missing';
      const message = `Unknown frame type ${shown}; known: login, register, resume, choose, characters, command, state, ping, quit, password, delete_account.`;
      return id === undefined ? { ok: false, code: 'unknown_type', message } : { ok: false, code: 'unknown_type', message, id };
    }
  }
}
