import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { startTestServer, WsClient, type TestServer } from '../server/helpers.js';
import { mcpAgent } from './helpers.js';

describe('the game master seat (an agent key made with --gm)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('gives gm_* tools only to game masters', async () => {
    const player = await mcpAgent(server.httpPort);
    const names = (await player.client.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith('gm_'))).toEqual([]);
    await player.call('join', { character: 'carter' });
    const refused = await player.call('gm_narrate', { text: 'The sky falls.' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/for game masters/);
    await player.close();
    const { key } = server.agentApi.keys.create('narrator', 'gm');
    const gm = await mcpAgent(server.httpPort, key);
    expect((await gm.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('gm_'))).toEqual(['gm_overview', 'gm_narrate', 'gm_create', 'gm_move']);
    await gm.close();
  });

  it('narrates, creates and moves from its character, seen by a player and logged with its name', async () => {
    const { key } = server.agentApi.keys.create('keeper', 'gm');
    const gm = await mcpAgent(server.httpPort, key);
    const human = await WsClient.open(server.wsUrl);
    await human.guest('kitty');

    const overview = await gm.call('gm_overview');
    expect(overview.isError).toBe(false);
    expect(overview.obs.text).toMatch(/^Little world: 3 rooms, 5 characters/);
    expect(overview.obs.text).toMatch(/Walled Garden \[garden\]: [^\n]*kitty \(human\)/);
    expect(overview.obs.text).toMatch(/Tool Shed \[shed\]: ghost \(nobody\); exits: south -> garden, the back door -> road/);

    await gm.call('join', { character: 'ghost' });
    const moved = await gm.call('gm_move', { character: 'me', to: 'garden' });
    expect(moved).toMatchObject({ isError: false, obs: { room: { id: 'garden' } } });
    await human.event('A ghost appears in a swirl of light.');

    const said = await gm.call('gm_narrate', { text: 'A cold wind blows through the garden.' });
    expect(said.obs.text).toBe('You narrate: A cold wind blows through the garden.');
    expect((await human.event('cold wind')).text).toBe('A cold wind blows through the garden.');

    const made = await gm.call('gm_create', { name: 'Iron Key', affordances: ['wearable'] });
    expect(made.isError).toBe(false);
    expect(made.obs.text).toMatch(/^You create an iron key \(iron-key/);
    await human.event('The ghost makes an iron key appear out of thin air.');
    const got = await human.command('get iron key');
    expect(got.result.ok).toBe(true);
    expect((await human.command('wear iron key')).result.ok).toBe(true);

    const bad = await gm.call('gm_create', { name: 'wand', affordances: ['magic'] });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/allowed values/);
    const nowhere = await gm.call('gm_move', { character: 'orc', to: 'the moon' });
    expect(nowhere).toMatchObject({ isError: true });
    expect(nowhere.obs.text).toMatch(/No room or character called "the moon"/);
    const away = await gm.call('gm_move', { character: 'orc', to: 'road' });
    expect(away.isError).toBe(false);
    await human.event('The orc vanishes in a swirl of light.');
    expect((await server.host.characters()).find((c) => c.id === 'orc')!.roomId).toBe('road');

    const db = new Database(server.db, { readonly: true });
    const rows = db.prepare("SELECT kind, input, cause FROM events WHERE kind = 'admin' ORDER BY seq").all();
    db.close();
    expect(rows).toEqual([
      { kind: 'admin', input: '@teleport me to garden', cause: 'agent:keeper' },
      { kind: 'admin', input: '@narrate A cold wind blows through the garden.', cause: 'agent:keeper' },
      { kind: 'admin', input: '@create iron key +wearable', cause: 'agent:keeper' },
      { kind: 'admin', input: '@teleport orc to road', cause: 'agent:keeper' },
    ]);
    await gm.close();
    await human.close();
  });
});
