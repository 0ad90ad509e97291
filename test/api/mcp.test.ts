import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { startTestServer, WsClient, type TestServer } from '../server/helpers.js';
import { mcpAgent } from './helpers.js';
import { ACTIONS, EMOTES } from '../../server/engine/index.js';
import { TOOLS, uncoveredActions } from '../../server/api/tools.js';
import { PERSONA_URI, ROOM_URI } from '../../server/api/mcp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

describe('MCP server at /mcp', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('lists one tool per engine action plus the game commands, with JSON Schema arguments', async () => {
    const a = await mcpAgent(server.httpPort);
    const { tools } = await a.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(TOOLS.filter((t) => t.kind !== 'gm').map((t) => t.name));
    for (const action of Object.keys(ACTIONS)) if (action !== 'get_from') expect(names).toContain(action);
    expect(uncoveredActions()).toEqual([]);
    for (const n of ['join', 'say', 'tell', 'emote', 'go', 'look', 'examine', 'inventory', 'valid_actions']) expect(names).toContain(n);
    const emote = tools.find((t) => t.name === 'emote')!;
    expect((emote.inputSchema.properties as Record<string, { enum: string[] }>).emote!.enum).toEqual([...EMOTES]);
    expect(EMOTES).toHaveLength(22);
    const put = tools.find((t) => t.name === 'put')!;
    expect(put.inputSchema.required).toEqual(['object', 'prep', 'container']);
    expect(tools.every((t) => t.description && t.description.length > 20 && t.outputSchema)).toBe(true);
    const version = a.client.getServerVersion();
    expect(version?.name).toBe('lightmud');
    expect(a.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    await a.close();
  });

  it('gives a character to one agent only, however many ask at once', async () => {
    const agents = await Promise.all(Array.from({ length: 6 }, () => mcpAgent(server.httpPort)));
    const results = await Promise.all(agents.map((a) => a.call('join', { character: 'carter' })));
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    for (const r of results.filter((x) => x.isError)) expect(r.text).toMatch(/Someone else (is playing|just took) carter/);
    // Without a name, each of the others gets a different free character.
    const rest = await Promise.all(agents.filter((_, i) => results[i]!.isError).map((a) => a.call('join')));
    const ids = rest.filter((r) => !r.isError).map((r) => r.obs.character!.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain('carter');
    await Promise.all(agents.map((a) => a.close()));
  });

  it('joins as a guest, acts, and answers an impossible action with the reason and the closest valid actions', async () => {
    const a = await mcpAgent(server.httpPort);
    const before = await a.call('look');
    expect(before.isError).toBe(true);
    expect(before.text).toMatch(/call join first.*kitty/);

    const joined = await a.call('join', { character: 'kitty' });
    expect(joined.isError).toBe(false);
    expect(joined.obs).toMatchObject({ ok: true, character: { id: 'kitty', name: 'kitty' }, room: { id: 'garden', name: 'Walled Garden' } });
    expect(joined.obs.people!.map((p) => p.id).sort()).toEqual(['gardener', 'orc']);
    expect(joined.obs.validActions).toEqual(expect.arrayContaining(['get shovel', 'hug orc', 'get gold coin from oak chest']));
    expect(joined.text).toContain('I am a kitty');

    const got = await a.call('get', { object: 'shovel' });
    expect(got).toMatchObject({ isError: false, obs: { ok: true, text: 'You get the shovel.', inventory: { carrying: ['shovel'] } } });
    expect(got.obs.validActions).toEqual(expect.arrayContaining(['drop shovel', 'wield shovel']));
    const coin = await a.call('get', { object: 'gold coin', from: 'oak chest' });
    expect(coin.obs.inventory!.carrying.sort()).toEqual(['gold coin', 'shovel']);

    const wear = await a.call('wear', { object: 'shovel' });
    expect(wear.isError).toBe(true);
    expect(wear.obs.ok).toBe(false);
    expect(wear.obs.text).toMatch(/shovel/);
    expect(wear.obs.text).not.toMatch(/nothing happens/i);
    expect(wear.obs.suggestions![0]).toBe('wield shovel');
    expect(wear.obs.suggestions).toContain('drop shovel');
    expect(wear.text).toContain('You could: wield shovel');

    const eat = await a.call('eat', { object: 'boulder' });
    expect(eat.isError).toBe(true);
    expect(eat.obs.text).toMatch(/boulder/);
    expect(eat.obs.suggestions!.length).toBeGreaterThan(0);

    const go = await a.call('go', { exit: 'up the chimney' });
    expect(go.isError).toBe(true);
    expect(go.obs.suggestions).toContain('go north');

    const bad = await a.call('emote', { emote: 'moonwalk' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/emote must be equal to one of the allowed values \(applaud, blush/);
    const extra = await a.call('drop', { object: 'shovel', and: 'more' });
    expect(extra.isError).toBe(true);

    const va = await a.call('valid_actions');
    expect(va.text).toMatch(/^You can: .*drop shovel.*go north/s);
    for (const [tool, args, text] of [
      ['drop', { object: 'shovel' }, 'You drop the shovel.'],
      ['put', { object: 'gold coin', prep: 'in', container: 'oak chest' }, 'You put the gold coin in the oak chest.'],
      ['emote', { emote: 'wave', character: 'orc' }, 'You wave at the orc.'],
      ['say', { text: 'hello there' }, 'You say, "hello there"'],
      ['tell', { character: 'orc', text: 'nice club' }, 'You tell the orc, "nice club"'],
      ['hug', { character: 'gardener' }, 'You hug the gardener.'],
      ['examine', { target: 'oak chest' }, 'A heavy chest.'],
      ['inventory', {}, 'You are carrying nothing.'],
    ] as const) {
      const r = await a.call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(false);
      expect(r.obs.text).toContain(text);
    }
    const moved = await a.call('go', { exit: 'north' });
    expect(moved.obs.room!.id).toBe('shed');
    await a.call('go', { exit: 'south' });
    await a.close();
  });

  it('hands back what others did meanwhile, and others see the agent act', async () => {
    const a = await mcpAgent(server.httpPort);
    await a.call('join', { character: 'orc' });
    const human = await WsClient.open(server.wsUrl);
    await human.guest('gardener');
    await human.command('say good morning, orc');
    await human.command('wave orc');
    const r = await a.call('hug', { character: 'gardener' });
    expect(r.obs.events).toEqual(['The gardener says, "good morning, orc"', 'The gardener waves at you.']);
    expect(r.text).toMatch(/^Since your last call:\n- The gardener says/);
    await human.event('The orc hugs you.');
    const again = await a.call('look');
    expect(again.obs.events).toEqual([]);
    // The character is taken: another agent cannot join as the orc, nor as the gardener.
    const b = await mcpAgent(server.httpPort);
    const taken = await b.call('join', { character: 'orc' });
    expect(taken.isError).toBe(true);
    expect(taken.text).toMatch(/Someone else is playing orc/);
    expect((await b.call('join', { character: 'gardener' })).text).toMatch(/Someone else is playing gardener/);
    // Ending the MCP session frees the character.
    await a.close();
    const now = await b.call('join', { character: 'orc' });
    expect(now.isError).toBe(false);
    await b.close();
    await human.close();
  });

  it('serves the persona and the current room as resources', async () => {
    const a = await mcpAgent(server.httpPort);
    const { resources } = await a.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([PERSONA_URI, ROOM_URI]);
    await expect(a.client.readResource({ uri: PERSONA_URI })).rejects.toThrow(/join/);
    await a.call('join', { character: 'ghost' });
    const persona = await a.client.readResource({ uri: PERSONA_URI });
    expect(persona.contents[0]).toMatchObject({ mimeType: 'text/plain', text: expect.stringContaining('I am a ghost. I haunt the shed.') });
    const room = await a.client.readResource({ uri: ROOM_URI });
    const data = JSON.parse((room.contents[0] as { text: string }).text);
    expect(data).toMatchObject({ room: { id: 'shed', name: 'Tool Shed' }, inventory: { carrying: ['lantern'] } });
    expect(data.validActions).toContain('get rake');
    await a.close();
  });

  it('takes agent keys, refuses unknown or revoked ones, and records who caused each command', async () => {
    const { key } = server.agentApi.keys.create('scout');
    const a = await mcpAgent(server.httpPort, key);
    await a.call('join', { character: 'carter' });
    expect((await a.call('say', { text: 'keyed hello' })).isError).toBe(false);
    const guest = await mcpAgent(server.httpPort);
    await guest.call('join', { character: 'kitty' });
    await guest.call('say', { text: 'guest hello' });
    const human = await WsClient.open(server.wsUrl);
    await human.guest('gardener');
    await human.command('say human hello');

    // Another key (or none) cannot use this session.
    const res = await fetch(`http://127.0.0.1:${server.httpPort}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': a.transport.sessionId!, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(res.status).toBe(403);
    await expect(mcpAgent(server.httpPort, 'lmk_not-a-real-key')).rejects.toThrow(/401|unknown or revoked/);
    await a.close();
    expect(server.agentApi.keys.revoke('scout')).toBe(true);
    await expect(mcpAgent(server.httpPort, key)).rejects.toThrow(/401|unknown or revoked/);
    expect(server.agentApi.keys.list()).toMatchObject([{ name: 'scout', prefix: key.slice(0, 8), revokedAt: expect.any(Number) }]);

    const db = new Database(server.db, { readonly: true });
    const rows = db.prepare("SELECT input, cause FROM events WHERE input LIKE 'say %hello'").all();
    db.close();
    expect(rows).toEqual([
      { input: 'say keyed hello', cause: 'agent:scout' },
      { input: 'say guest hello', cause: 'agent:guest' },
      { input: 'say human hello', cause: 'human' },
    ]);
    await guest.close();
    await human.close();
  });

  it('lists agents in /api/who', async () => {
    const a = await mcpAgent(server.httpPort);
    await a.call('join', { character: 'kitty' });
    const who = (await (await fetch(`http://127.0.0.1:${server.httpPort}/api/who`)).json()) as { agents: unknown[] };
    expect(who.agents).toEqual([{ character: 'kitty', name: 'kitty', agent: 'guest', idleSeconds: expect.any(Number), room: 'Walled Garden' }]);
    await a.close();
  });
});

describe('MCP sessions that go quiet', () => {
  it('are ended after the idle timeout, freeing the character', async () => {
    const server = await startTestServer({ idleTimeoutMs: 1500 });
    try {
      const a = await mcpAgent(server.httpPort);
      await a.call('join', { character: 'kitty' });
      expect(server.host.driverOf('kitty')?.kind).toBe('agent');
      // The server's sweep runs every second; wait (bounded) until it has let the character go.
      const deadline = Date.now() + 20_000;
      while (server.host.driverOf('kitty') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(server.host.driverOf('kitty')).toBeUndefined();
      expect(server.agentApi.mcp.size).toBe(0);
      await expect(a.call('look')).rejects.toThrow(/404|Session not found/);
      await a.client.close();
    } finally {
      await server.stop();
    }
  });
});
