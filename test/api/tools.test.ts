import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import { startTestServer, type TestServer } from '../server/helpers.js';
import { mcpAgent } from './helpers.js';
import { TOOLS } from '../../server/api/tools.js';
import { actionToCall, openAiModel, runLlmAgent, scriptedModel, validActionsIn, type ChatRequest } from '../../clients/llm-agent.js';
import type { AnthropicTool, OpenAiTool } from '../../server/api/formats.js';

const ajv = new Ajv({ strict: true, allErrors: true });

describe('tool lists for chat-completion APIs, and the example LLM agent', () => {
  let server: TestServer;
  let base: string;
  let openai: OpenAiTool[];
  let anthropic: AnthropicTool[];
  beforeAll(async () => {
    server = await startTestServer();
    base = `http://127.0.0.1:${server.httpPort}`;
    openai = ((await (await fetch(`${base}/api/agent/tools?format=openai`)).json()) as { tools: OpenAiTool[] }).tools;
    anthropic = ((await (await fetch(`${base}/api/agent/tools?format=anthropic`)).json()) as { tools: AnthropicTool[] }).tools;
  });
  afterAll(() => server.stop());

  it('serves both formats from the one table, every schema valid JSON Schema', async () => {
    const played = TOOLS.filter((t) => t.name !== 'join' && t.kind !== 'gm').map((t) => t.name);
    expect(openai.map((t) => t.function.name)).toEqual(played);
    expect(anthropic.map((t) => t.name)).toEqual(played);
    for (const t of openai) {
      expect(t.type).toBe('function');
      expect(ajv.validateSchema(t.function.parameters), `${t.function.name}: ${ajv.errorsText()}`).toBe(true);
      ajv.compile(t.function.parameters);
      expect(t.function.description).toBe(TOOLS.find((d) => d.name === t.function.name)!.description);
    }
    for (const t of anthropic) {
      expect(ajv.validateSchema(t.input_schema), `${t.name}: ${ajv.errorsText()}`).toBe(true);
      expect(t.input_schema.type).toBe('object');
      expect(Object.keys(t)).toEqual(['name', 'description', 'input_schema']);
    }
    expect((await fetch(`${base}/api/agent/tools?format=gemini`)).status).toBe(400);
  });

  it('round-trips valid actions as Anthropic tool_use blocks: each validates and succeeds over MCP', async () => {
    const a = await mcpAgent(server.httpPort);
    const joined = await a.call('join', { character: 'gardener' });
    const actions = validActionsIn(joined.text);
    expect(actions).toEqual(joined.obs.validActions!.slice(0, 30));
    const byName = new Map(anthropic.map((t) => [t.name, ajv.compile(t.input_schema)]));
    let tried = 0;
    // Every kind of action once: each time, the first valid action of a tool not yet tried.
    const seen = new Set<string>();
    let now = joined.obs.validActions!;
    for (;;) {
      for (const action of now) expect(actionToCall(action), action).not.toBeNull();
      const action = now.find((x) => !seen.has(actionToCall(x)!.name));
      if (!action) break;
      const call = actionToCall(action)!;
      seen.add(call.name);
      const block = { type: 'tool_use', id: `toolu_${tried}`, name: call.name, input: call.args };
      const validate = byName.get(block.name)!;
      expect(validate(block.input), `${action}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      const r = await a.call(block.name, block.input);
      expect(r.isError, `${action}: ${r.text}`).toBe(false);
      tried++;
      now = r.obs.validActions!;
    }
    expect(seen.size, [...seen].join(' ')).toBeGreaterThanOrEqual(10);
    await a.close();
  });

  it('plays through an OpenAI-compatible endpoint (the scripted stand-in served over HTTP)', async () => {
    const model = scriptedModel();
    const validators = new Map(openai.map((t) => [t.function.name, ajv.compile(t.function.parameters)]));
    const requests: ChatRequest[] = [];
    const problems: string[] = [];
    const standIn: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        void (async () => {
          if (req.url !== '/v1/chat/completions' || req.headers.authorization !== 'Bearer test-key') {
            res.writeHead(404).end();
            return;
          }
          const chat = JSON.parse(body) as ChatRequest;
          requests.push(chat);
          const message = await model.complete(chat);
          for (const tc of message.tool_calls ?? []) {
            const v = validators.get(tc.function.name);
            if (!v || !v(JSON.parse(tc.function.arguments))) problems.push(`${tc.function.name} ${tc.function.arguments}`);
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'tool_calls' }] }));
        })();
      });
    });
    await new Promise<void>((r) => standIn.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}/v1`;
    try {
      const turns = await runLlmAgent({ server: base, model: openAiModel(url, 'test-key'), modelName: 'stand-in', turns: 12, character: 'kitty' });
      expect(turns).toHaveLength(12);
      expect(problems).toEqual([]);
      expect(turns.filter((t) => t.isError).map((t) => `${t.tool} ${JSON.stringify(t.args)}: ${t.text}`)).toEqual([]);
      expect(new Set(turns.map((t) => t.tool)).size).toBeGreaterThanOrEqual(3);
      expect(requests[0]!.tools).toEqual(openai);
      expect(requests[0]!.messages[1]).toMatchObject({ role: 'user', content: expect.stringContaining('You are now kitty') });
      expect(requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_0' });
    } finally {
      await new Promise<void>((r) => standIn.close(() => r()));
    }
    // The agent's session ended with it: kitty is free again.
    expect((await server.host.freeCharacters()).map((c) => c.id)).toContain('kitty');
  });
});
