/**
 * ANSI colour and the prompt option over a real telnet socket on 127.0.0.1: colour is off for a client
 * that says nothing of its terminal, on for one whose TTYPE says it shows colour, and `color on|off`
 * and `prompt on|off` are the player's to change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TelnetClient, type TestServer } from './helpers.js';
import { clientShowsColour, colourGameText } from '../../server/net/telnet-colour.js';

const ESC = '\x1b';
const ROOM = '\x1b[1;36m';
const EXITS = '\x1b[32m';
const SPEECH = '\x1b[33m';
const RESET = '\x1b[0m';
const PROMPT = '\r\n> ';
/** Output with the word wrap undone (the wrap turns a space into CR LF). */
const flat = (s: string) => s.replace(/\r\n/g, ' ');

describe('telnet colour and prompt', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());
  const port = () => server.telnetPort!;

  it('is off for a client that does not negotiate; color on colours room names, exits and speech; color off', async () => {
    const t = await TelnetClient.open(port());
    await t.guest('kitty');
    t.line('look');
    const plain = await t.waitFor(PROMPT);
    expect(plain).toContain('Walled Garden');
    expect(plain).not.toContain(ESC);
    t.line('color');
    expect(flat(await t.waitFor(PROMPT))).toContain('Colour is off (your client did not say it shows colour); type color on or color off.');

    t.line('color on');
    expect(await t.waitFor(PROMPT)).toContain(`Colour on: ${ROOM}room names${RESET}, ${EXITS}exits${RESET} and ${SPEECH}"speech"${RESET}.`);
    t.line('look');
    const coloured = await t.waitFor(PROMPT);
    expect(coloured).toContain(`${ROOM}Walled Garden${RESET}\r\nRows of cabbages and a chest by the wall.\r\n${EXITS}Exits: north (Tool Shed).${RESET}`);
    expect(coloured).toMatch(/You see a shovel/); // the rest as it was
    t.line('say hello there');
    expect(await t.waitFor(PROMPT)).toContain(`You say, ${SPEECH}"hello there"${RESET}`);

    // another player's speech, as an event
    const o = await TelnetClient.open(port());
    await o.guest('orc');
    o.line('say what, "kitty"?');
    await t.waitFor(`The orc says, ${SPEECH}"what, "kitty"?"${RESET}`);
    // the orc's client did not negotiate: no colour for it
    o.line('look');
    expect(await o.waitFor(/Exits: north \(Tool Shed\)\.[\s\S]*?> /)).not.toContain(ESC);

    t.line('colour off');
    await t.waitFor('Colour off.\r\n> ');
    t.line('north');
    const off = await t.waitFor(PROMPT);
    expect(off).toContain('Tool Shed');
    expect(off).not.toContain(ESC);
    t.line('color blue');
    expect(await t.waitFor(PROMPT)).toContain('Usage: color on|off');
    t.line('quit');
    o.line('quit');
    await Promise.all([t.waitClosed(), o.waitClosed()]);
  });

  it('is on when the client says through TTYPE that it shows colour, off when it says not', async () => {
    const cases: [string[], boolean][] = [
      [['MUDLET', 'ANSI-256COLOR', 'MTTS 2825'], true],
      [['xterm-256color'], true],
      [['dumb'], false],
      [['TINTIN++', 'dumb', 'MTTS 4'], false], // MTTS without the ANSI bit
    ];
    for (const [names, on] of cases) {
      const t = await TelnetClient.open(port(), [], undefined, names);
      // each answer asked for, and one more that repeats the last (the end of the list)
      await t.waitTtypeRequests(names.length + 1);
      await t.guest('gardener');
      t.line('look');
      const text = await t.waitFor(PROMPT);
      expect(text.includes(`${ROOM}Walled Garden${RESET}`), names.join(',')).toBe(on);
      expect(text.includes(ESC), names.join(',')).toBe(on);
      t.line('color');
      expect(flat(await t.waitFor(PROMPT))).toContain(on ? 'Colour is on (your client says it shows colour)' : 'Colour is off');
      if (on) {
        // the player's word wins over the terminal type
        t.line('color off');
        await t.waitFor('Colour off.');
        t.line('look');
        expect(await t.waitFor(/Exits:[^\n]*\n[\s\S]*?> /)).not.toContain(ESC);
      }
      t.line('quit');
      await t.waitClosed();
    }
  });

  it('prompt off leaves out the "> " after output; prompt on brings it back; help lists both', async () => {
    const t = await TelnetClient.open(port());
    await t.guest('ghost');
    t.line('prompt off');
    await t.waitFor('Prompt off.');
    t.line('look');
    t.line('say one');
    t.line('say two');
    const between = await t.waitFor('You say, "two"');
    expect(between).toContain('Tool Shed');
    expect(between).toContain('You say, "one"');
    expect(between).not.toContain('> ');
    t.line('prompt');
    expect(flat(await t.waitFor(/type prompt on or\s+prompt off\./))).toContain('The prompt is off');
    t.line('prompt on');
    await t.waitFor('Prompt on.\r\n> ');
    t.line('help');
    const help = flat(await t.waitFor(PROMPT));
    expect(help).toContain('Commands:');
    expect(help).toMatch(/color on\|off +ANSI colour for room names, exits and speech/);
    expect(help).toMatch(/prompt on\|off +the "> " prompt/);
    expect(help.indexOf('Telnet:')).toBeGreaterThan(help.indexOf('Type help <command> for more'));
    t.line('help color');
    expect(await t.waitFor(PROMPT)).toContain('color on|off');
    t.line('quit');
    await t.waitClosed();
  });
});

describe('colourGameText and clientShowsColour', () => {
  it('colours a look, speech of every kind, and leaves the rest alone', () => {
    expect(colourGameText('You take the path north.\nTool Shed\nA dusty shed.\nExits: south (Walled Garden).\nA ghost is here.')).toBe(
      `You take the path north.\n${ROOM}Tool Shed${RESET}\nA dusty shed.\n${EXITS}Exits: south (Walled Garden).${RESET}\nA ghost is here.`,
    );
    expect(colourGameText('Exits: south, the back door.')).toBe(`${EXITS}Exits: south, the back door.${RESET}`);
    expect(colourGameText('The orc tells you, "go"')).toBe(`The orc tells you, ${SPEECH}"go"${RESET}`);
    expect(colourGameText('Someone shouts from the north, "help!"')).toBe(`Someone shouts from the north, ${SPEECH}"help!"${RESET}`);
    expect(colourGameText('You whisper to the orc, "psst"')).toBe(`You whisper to the orc, ${SPEECH}"psst"${RESET}`);
    expect(colourGameText('The orc whispers something to the kitty.')).toBe('The orc whispers something to the kitty.');
    expect(colourGameText('You get the shovel.')).toBe('You get the shovel.');
  });

  it('reads MTTS first, else the terminal names', () => {
    expect(clientShowsColour([], null)).toBe(false);
    expect(clientShowsColour(['ANSI'], null)).toBe(true);
    expect(clientShowsColour(['VT100'], null)).toBe(false);
    expect(clientShowsColour(['MUDLET', 'xterm', 'MTTS 0'], 0)).toBe(false);
    expect(clientShowsColour(['UNKNOWN', 'UNKNOWN', 'MTTS 1'], 1)).toBe(true);
  });
});
