/**
 * A language model plays a lightmud character: the model sees what the character perceives and
 * answers with tool calls (OpenAI function calling, from GET /api/agent/tools?format=openai); this
 * program carries each call out over MCP (/mcp) and sends the result back as the tool's message.
 *
 *   OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-... OPENAI_MODEL=gpt-4o-mini \
 *     npx tsx clients/llm-agent.ts http://localhost:3000 --turns 20 [--character kitty]
 *
 * Any OpenAI-compatible endpoint works (vLLM, llama.cpp's server, Ollama's /v1). LIGHTMUD_AGENT_KEY,
 * when set, is sent as the agent key. `--scripted` plays with `scriptedModel` instead: a stand-in
 * that needs no key and picks valid actions in turn (the tests use it).
 */
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools: unknown[];
  tool_choice?: 'auto' | 'required';
}

/** Anything that answers a chat-completion request with one assistant message. */
export interface ChatModel {
  complete(req: ChatRequest): Promise<Extract<ChatMessage, { role: 'assistant' }>>;
}

/** An OpenAI-compatible endpoint: POST {baseUrl}/chat/completions. */
export function openAiModel(baseUrl: string, apiKey: string | undefined): ChatModel {
  return {
    async complete(req) {
      const res = await fetch(`${baseUrl.replace(/\/$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify(req),
      });
      if (!res.ok) throw new Error(`chat completion failed: ${res.status} ${(await res.text()).slice(0, 300)}`);
      const body = (await res.json()) as { choices: { message: Extract<ChatMessage, { role: 'assistant' }> }[] };
      const message = body.choices[0]?.message;
      if (!message) throw new Error('chat completion returned no choice');
      return message;
    },
  };
}

/**
 * A valid action in canonical text ("put coin in chest", "give rake to ghost", "go north") as a tool
 * call: the inverse of the tool table's commands. Null for text it does not know.
 */
export function actionToCall(action: string): { name: string; args: Record<string, string> } | null {
  const m = (re: RegExp) => re.exec(action);
  let r: RegExpExecArray | null;
  if ((r = m(/^go (.+)$/))) return { name: 'go', args: { exit: r[1]! } };
  if ((r = m(/^get (.+) from (.+)$/))) return { name: 'get', args: { object: r[1]!, from: r[2]! } };
  if ((r = m(/^put (.+) (in|on) (.+)$/))) return { name: 'put', args: { object: r[1]!, prep: r[2]!, container: r[3]! } };
  if ((r = m(/^give (.+) to (.+)$/))) return { name: 'give', args: { object: r[1]!, character: r[2]! } };
  if ((r = m(/^steal (.+) from (.+)$/))) return { name: 'steal', args: { object: r[1]!, character: r[2]! } };
  if ((r = m(/^(hit|hug) (.+)$/))) return { name: r[1]!, args: { character: r[2]! } };
  if ((r = m(/^(get|drop|wear|wield|remove|eat|drink) (.+)$/))) return { name: r[1]!, args: { object: r[2]! } };
  if (action === 'look' || action === 'inventory') return { name: action, args: {} };
  return null;
}

/** The valid actions listed in an observation's text ("valid actions: a; b; c"). */
export function validActionsIn(text: string): string[] {
  const line = /^valid actions: (.*)$/m.exec(text)?.[1] ?? '';
  return line === 'none' ? [] : line.split('; ').filter((a) => a && !a.startsWith('...'));
}

/**
 * The stand-in model: on turn i it takes the i-th valid action of the last observation (after its
 * exits), or says something when there is none; it answers exactly like an OpenAI endpoint would.
 */
export function scriptedModel(): ChatModel & { turns: number } {
  const model = {
    turns: 0,
    async complete(req: ChatRequest) {
      const last = [...req.messages].reverse().find((m) => m.role === 'tool' || m.role === 'user');
      const text = last && 'content' in last && typeof last.content === 'string' ? last.content : '';
      const exits = (/exits: (.*)$/m.exec(text)?.[1] ?? '').split(', ').filter((e) => e && e !== 'none').map((e) => `go ${e}`);
      const options = [...validActionsIn(text), ...exits];
      const i = model.turns++;
      const call = options.length ? actionToCall(options[i % options.length]!) : null;
      const chosen = call ?? { name: 'say', args: { text: 'Hello, is anyone here?' } };
      return { role: 'assistant' as const, content: null, tool_calls: [{ id: `call_${i}`, type: 'function' as const, function: { name: chosen.name, arguments: JSON.stringify(chosen.args) } }] };
    },
  };
  return model;
}

export interface LlmAgentOptions {
  /** The server's HTTP address, e.g. http://localhost:3000 */
  server: string;
  model: ChatModel;
  modelName: string;
  turns: number;
  character?: string;
  agentKey?: string;
  log?: (line: string) => void;
}

export interface Turn {
  tool: string;
  args: Record<string, unknown>;
  isError: boolean;
  text: string;
}

const SYSTEM = [
  'You play a character in a fantasy text world shared with other players. Stay in character.',
  'Each turn, call exactly one tool. Prefer the valid actions listed in the latest observation: they succeed.',
  'Talk to the people you meet (say, tell), show feelings with emote, move with go.',
].join(' ');

/** Play `turns` model turns; returns what was called and what came back. */
export async function runLlmAgent(opts: LlmAgentOptions): Promise<Turn[]> {
  const base = opts.server.replace(/\/$/, '');
  const headers = opts.agentKey ? { Authorization: `Bearer ${opts.agentKey}` } : undefined;
  const toolsRes = await fetch(`${base}/api/agent/tools?format=openai`, headers ? { headers } : {});
  if (!toolsRes.ok) throw new Error(`GET /api/agent/tools: ${toolsRes.status}`);
  const { tools } = (await toolsRes.json()) as { tools: unknown[] };
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), headers ? { requestInit: { headers } } : {});
  const mcp = new Client({ name: 'lightmud-llm-agent', version: '1.0.0' });
  await mcp.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
    const first = r.content[0];
    return { isError: r.isError === true, text: first?.type === 'text' ? first.text : '' };
  };
  const out: Turn[] = [];
  try {
    const joined = await call('join', opts.character ? { character: opts.character } : {});
    if (joined.isError) throw new Error(joined.text);
    opts.log?.(joined.text);
    const messages: ChatMessage[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: joined.text }];
    for (let t = 0; t < opts.turns; t++) {
      const reply = await opts.model.complete({ model: opts.modelName, messages, tools, tool_choice: 'required' });
      messages.push(reply);
      if (!reply.tool_calls?.length) {
        messages.push({ role: 'user', content: 'Call one of the tools to act.' });
        continue;
      }
      for (const tc of reply.tool_calls) {
        let args: Record<string, unknown>;
        try {
          args = JSON.parse(tc.function.arguments || '{}') as Record<string, unknown>;
        } catch {
          messages.push({ role: 'tool', tool_call_id: tc.id, content: 'The arguments were not valid JSON.' });
          continue;
        }
        const r = await call(tc.function.name, args);
        out.push({ tool: tc.function.name, args, ...r });
        opts.log?.(`> ${tc.function.name} ${JSON.stringify(args)}${r.isError ? ' (refused)' : ''}\n${r.text}`);
        messages.push({ role: 'tool', tool_call_id: tc.id, content: r.text });
      }
      // Keep the context short: the system prompt and the last 12 messages, starting after a tool reply.
      if (messages.length > 24) {
        let cut = messages.length - 12;
        while (cut < messages.length && messages[cut]!.role === 'tool') cut++;
        messages.splice(1, cut - 1);
      }
    }
  } finally {
    await transport.terminateSession().catch(() => {});
    await mcp.close();
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const server = args.find((a) => /^https?:/.test(a)) ?? 'http://localhost:3000';
  const scripted = args.includes('--scripted');
  const env = process.env;
  if (!scripted && !env.OPENAI_BASE_URL && !env.OPENAI_API_KEY) {
    console.error('Set OPENAI_BASE_URL and/or OPENAI_API_KEY (and OPENAI_MODEL), or pass --scripted.');
    process.exit(2);
  }
  const model = scripted ? scriptedModel() : openAiModel(env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1', env.OPENAI_API_KEY);
  const turns = await runLlmAgent({
    server, model, modelName: env.OPENAI_MODEL ?? 'gpt-4o-mini', turns: Number(opt('turns') ?? 10),
    character: opt('character'), agentKey: env.LIGHTMUD_AGENT_KEY, log: (l) => console.log(l),
  });
  console.error(`${turns.length} calls, ${turns.filter((t) => t.isError).length} refused`);
}
