/**
 * The one table of what an outside agent can do: each tool's name, description, JSON Schema
 * arguments and the game command it stands for. The MCP server (mcp.ts), the chat-completion tool
 * lists (formats.ts) and the example agent are all generated from it; nothing else defines a tool.
 *
 * A tool turns into one line of game input ("put shovel in oak chest"), run through the same engine
 * and log as a typed command, so a tool call and a typed command can never disagree.
 */
import { ACTIONS, EMOTES, type ActionName } from '../engine/index.js';

export interface StringProp {
  type: 'string';
  description: string;
  enum?: readonly string[];
  minLength?: number;
  maxLength?: number;
}

/** A list of words from a closed set (a game master's object affordances). */
export interface ListProp {
  type: 'array';
  description: string;
  items: { type: 'string'; enum: readonly string[] };
  uniqueItems: true;
}

/** A JSON Schema for an object of arguments: strings, and lists of enum words. */
export interface ArgsSchema {
  type: 'object';
  properties: Record<string, StringProp | ListProp>;
  required: string[];
  additionalProperties: false;
}

export type ToolKind =
  /** Joins the game (MCP only: the chat formats and the step API join otherwise). */
  | 'session'
  /** Reads the situation; changes nothing. */
  | 'read'
  /** A LIGHT graph action (table 12). */
  | 'action'
  /** Moves the character. */
  | 'move'
  /** Speech or an emote: seen by others, changes nothing in the graph. */
  | 'social'
  /** A game master's power (only for agent keys made with --gm): narrate, create, move. */
  | 'gm';

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  kind: ToolKind;
  /** The engine actions this tool performs (every engine action is covered by exactly one tool). */
  actions?: ActionName[];
  input: ArgsSchema;
  /** The game command for these (already validated) arguments; null for tools that are not commands (join, valid_actions). */
  command(args: Record<string, string>): string | null;
  /** The verb of its command, used to rank suggestions after a failure ("get", "put"). */
  verb?: string;
}

const MAX_ARG = 200;
const str = (description: string, extra: { enum?: readonly string[] } = {}) => ({ type: 'string' as const, description, minLength: 1, maxLength: MAX_ARG, ...extra });
const schema = (properties: ArgsSchema['properties'], required: string[] = Object.keys(properties)): ArgsSchema => ({ type: 'object', properties, required, additionalProperties: false });
const NONE = schema({});

const OBJECT = 'The object, by the name shown in the room or your inventory (e.g. "shovel", "oak chest"; "2nd candle" for the second of two).';
const CHARACTER = 'The character, by name as listed under people (e.g. "orc").';

/** Arguments as typed: strip what would split or smuggle a command (newlines, control bytes). */
const clean = (v: string | undefined) => (v ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

function graph(name: ActionName, verb: string, description: string, props: ArgsSchema['properties'], command: (a: Record<string, string>) => string, required?: string[]): ToolDef {
  return { name, title: `${verb[0]!.toUpperCase()}${verb.slice(1)}`, description, kind: 'action', actions: name === 'get' ? ['get', 'get_from'] : [name], input: schema(props, required), command, verb };
}

export const TOOLS: ToolDef[] = [
  {
    name: 'join', title: 'Join the game', kind: 'session',
    description: 'Take up a character in the shared world; call this first. Without "character" you get any free one. The result lists where you are, who and what is here, and your valid actions.',
    input: schema({ character: str('The character to play, by name or id (optional; without it, any free character).') }, []),
    command: () => null,
  },
  {
    name: 'look', title: 'Look around', kind: 'read', verb: 'look',
    description: 'Describe the room you are in: its description, exits, the people and the things here.',
    input: NONE, command: () => 'look',
  },
  {
    name: 'examine', title: 'Examine', kind: 'read', verb: 'examine', actions: ['examine'],
    description: 'Look closely at an object, a character (how hurt they look, what they have), yourself ("me"), the room ("room") or a room next door: its description, and what it holds or wears. Changes nothing, but the others here see you examine it (LIGHT\'s examine).',
    input: schema({ target: str('What to examine: an object or character name, "me" or "room".') }),
    command: (a) => `examine ${clean(a.target)}`,
  },
  {
    name: 'inventory', title: 'Inventory', kind: 'read', verb: 'inventory',
    description: 'List what you carry, wear and wield.',
    input: NONE, command: () => 'inventory',
  },
  {
    name: 'valid_actions', title: 'Valid actions', kind: 'read',
    description: 'List every object action that would succeed right now, in command form ("get shovel", "give apple to orc"), and the exits you can go through.',
    input: NONE, command: () => null,
  },
  {
    name: 'go', title: 'Go', kind: 'move', verb: 'go',
    description: 'Leave the room through an exit, named by its label as listed under the room\'s exits (e.g. "north", "the back door").',
    input: schema({ exit: str('The exit label (e.g. "north") or the name of the room it leads to.') }),
    command: (a) => `go ${clean(a.exit)}`,
  },
  graph('get', 'get', 'Pick up an object. Without "from": it must lie directly in the room. With "from": take it out of a container or off a surface here or in your hands ("get coin from oak chest").',
    { object: str(OBJECT), from: str('The container or surface holding the object (optional).') },
    (a) => (clean(a.from) ? `get ${clean(a.object)} from ${clean(a.from)}` : `get ${clean(a.object)}`), ['object']),
  graph('drop', 'drop', 'Drop an object you carry (not one you wear or wield: remove it first) into the room.', { object: str(OBJECT) }, (a) => `drop ${clean(a.object)}`),
  graph('put', 'put', 'Put an object you carry in a container or on a surface within reach.',
    { object: str(OBJECT), prep: str('"in" for a container, "on" for a surface.', { enum: ['in', 'on'] }), container: str('The container or surface.') },
    (a) => `put ${clean(a.object)} ${a.prep === 'on' ? 'on' : 'in'} ${clean(a.container)}`),
  graph('give', 'give', 'Give an object you carry to another character in the room.', { object: str(OBJECT), character: str(CHARACTER) }, (a) => `give ${clean(a.object)} to ${clean(a.character)}`),
  graph('steal', 'steal', 'Take an object another character in the room carries (not what they wear or wield).', { object: str(OBJECT), character: str(CHARACTER) }, (a) => `steal ${clean(a.object)} from ${clean(a.character)}`),
  graph('wear', 'wear', 'Put on a wearable object you carry.', { object: str(OBJECT) }, (a) => `wear ${clean(a.object)}`),
  graph('wield', 'wield', 'Wield a weapon you carry.', { object: str(OBJECT) }, (a) => `wield ${clean(a.object)}`),
  graph('remove', 'remove', 'Take off something you wear, or stop wielding a weapon; you then carry it.', { object: str(OBJECT) }, (a) => `remove ${clean(a.object)}`),
  graph('eat', 'eat', 'Eat food you carry (it is gone afterwards).', { object: str(OBJECT) }, (a) => `eat ${clean(a.object)}`),
  graph('drink', 'drink', 'Drink a drink you carry (it is gone afterwards).', { object: str(OBJECT) }, (a) => `drink ${clean(a.object)}`),
  graph('hit', 'hit', 'Hit another character in the room: it may miss, be blocked, or cost them 2 health; at 0 they die and leave a body holding their things. They and everyone here see it.', { character: str(CHARACTER) }, (a) => `hit ${clean(a.character)}`),
  graph('hug', 'hug', 'Hug another character in the room.', { character: str(CHARACTER) }, (a) => `hug ${clean(a.character)}`),
  // LIGHT's other verbs (engine actions outside table 12; see the README's rules).
  graph('equip', 'equip', 'Wear or wield an object you carry, as it affords (LIGHT\'s equip).', { object: str(OBJECT) }, (a) => `equip ${clean(a.object)}`),
  graph('ingest', 'ingest', 'Eat or drink something you carry, as it affords (LIGHT\'s ingest).', { object: str(OBJECT) }, (a) => `ingest ${clean(a.object)}`),
  graph('follow', 'follow', 'Follow another character in the room: when they leave, you go with them.', { character: str(CHARACTER) }, (a) => `follow ${clean(a.character)}`),
  graph('unfollow', 'unfollow', 'Stop following whoever you follow.', {}, () => 'unfollow'),
  graph('block', 'block', 'Block another character in the room: while you both stay here, they will most likely fail to leave (each try is a roll). Only the two of you are told.', { character: str(CHARACTER) }, (a) => `block ${clean(a.character)}`),
  graph('unblock', 'unblock', 'Stop blocking whoever you block.', {}, () => 'unblock'),
  graph('use', 'use', 'Use an object you hold with a thing or a character here, yourself included (LIGHT\'s use: what happens is the object\'s own; with most things nothing special happens).',
    { object: str(OBJECT), with: str('What or whom to use it with: a thing or a character here, or "me".') }, (a) => `use ${clean(a.object)} with ${clean(a.with)}`),
  graph('point', 'point', 'Point at a thing or a person here, or the way to a neighbouring room.', { at: str('What to point at: an object, a character, or an exit or room name.') }, (a) => `point ${clean(a.at)}`),
  graph('wait', 'wait', 'Do nothing for a moment (others see you wait).', {}, () => 'wait'),
  {
    name: 'say', title: 'Say', kind: 'social', verb: 'say',
    description: 'Say something aloud to everyone in the room (at most 500 characters).',
    input: schema({ text: str('What to say, without quotes.') }), command: (a) => `say ${clean(a.text)}`,
  },
  {
    name: 'tell', title: 'Tell', kind: 'social', verb: 'tell',
    description: 'Say something to one character in the room; the others hear it too.',
    input: schema({ character: str(CHARACTER), text: str('What to say, without quotes.') }), command: (a) => `tell ${clean(a.character)}: ${clean(a.text)}`,
  },
  {
    name: 'whisper', title: 'Whisper', kind: 'social', verb: 'whisper',
    description: 'Whisper to one character in the room; the others only see that you whisper.',
    input: schema({ character: str(CHARACTER), text: str('What to whisper, without quotes.') }), command: (a) => `whisper ${clean(a.character)}: ${clean(a.text)}`,
  },
  {
    name: 'shout', title: 'Shout', kind: 'social', verb: 'shout',
    description: 'Shout: heard in this room and the rooms next to it.',
    input: schema({ text: str('What to shout, without quotes.') }), command: (a) => `shout ${clean(a.text)}`,
  },
  {
    name: 'emote', title: 'Emote', kind: 'social', verb: 'emote',
    description: 'Show a feeling with one of the 22 emotes, optionally at a character in the room ("wave" at "orc").',
    input: schema({ emote: str('The emote.', { enum: EMOTES }), character: str(`${CHARACTER} Optional.`) }, ['emote']),
    command: (a) => (clean(a.character) ? `${a.emote} ${clean(a.character)}` : a.emote!),
  },
  // ---- game master (agent keys made with --gm; acting from the character the game master joined as) ----
  {
    name: 'gm_overview', title: 'Overview of the world', kind: 'gm',
    description: 'Game master: every room with its exits, the characters in it and who drives each (human, model, script, agent or nobody).',
    input: NONE, command: () => null,
  },
  {
    name: 'gm_narrate', title: 'Narrate', kind: 'gm',
    description: 'Game master: describe something that happens in the room you are in; everyone there perceives exactly your words (e.g. "A cold wind blows out the candles."). Changes nothing in the world.',
    input: schema({ text: { ...str('The narration, in the third person, up to 1000 characters.'), maxLength: 1000 } }), command: () => null,
  },
  {
    name: 'gm_create', title: 'Create an object', kind: 'gm',
    description: 'Game master: make a new object appear in the room you are in, with the affordances you give it (everyone there sees it appear).',
    input: schema({
      name: { ...str('The object\'s name, lower case (e.g. "iron key").'), maxLength: 60 },
      affordances: { type: 'array', description: 'What it is: any of container, surface, weapon, wearable, food, drink; fixed for one that cannot be picked up.', items: { type: 'string', enum: ['container', 'surface', 'weapon', 'wearable', 'food', 'drink', 'fixed'] }, uniqueItems: true },
    }, ['name']),
    command: () => null,
  },
  {
    name: 'gm_move', title: 'Move a character', kind: 'gm',
    description: 'Game master: move a character ("me" for yourself) to a room, or to the room of another character; those left behind and those arrived among see it.',
    input: schema({ character: str('The character to move, by name or id, or "me".'), to: str('A room (name or id) or a character whose room it is.') }),
    command: () => null,
  },
];

export const TOOLS_BY_NAME: ReadonlyMap<string, ToolDef> = new Map(TOOLS.map((t) => [t.name, t]));

/** Engine actions with no tool: must be empty (checked by the tests). */
export function uncoveredActions(): string[] {
  const covered = new Set(TOOLS.flatMap((t) => t.actions ?? []));
  return (Object.keys(ACTIONS) as ActionName[]).filter((a) => !covered.has(a));
}

/** The shape of every tool result's structuredContent (MCP outputSchema; the step API's infos use parts of it). */
export const OBSERVATION_SCHEMA = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', description: 'Whether the call was understood and carried out.' },
    text: { type: 'string', description: 'What the character perceived in reply.' },
    character: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } }, required: ['id', 'name'] },
    room: {
      type: 'object',
      properties: {
        id: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' },
        exits: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' }, to: { type: 'string' }, name: { type: 'string' } }, required: ['label', 'to', 'name'] } },
      },
      required: ['id', 'name', 'description', 'exits'],
    },
    people: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, player: { type: 'boolean' } }, required: ['id', 'name'] } },
    objects: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, where: { type: 'string' } }, required: ['id', 'name', 'where'] } },
    inventory: {
      type: 'object',
      properties: { carrying: { type: 'array', items: { type: 'string' } }, wearing: { type: 'array', items: { type: 'string' } }, wielding: { type: 'array', items: { type: 'string' } } },
      required: ['carrying', 'wearing', 'wielding'],
    },
    validActions: { type: 'array', items: { type: 'string' }, description: 'Object actions that would succeed now, in command form.' },
    events: { type: 'array', items: { type: 'string' }, description: 'What others did that you perceived since your previous call.' },
    suggestions: { type: 'array', items: { type: 'string' }, description: 'After a failure: the valid actions closest to what was tried.' },
  },
  required: ['ok', 'text', 'events'],
} as const;
