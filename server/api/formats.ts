/**
 * The tool table (tools.ts) as chat-completion APIs want it: OpenAI's `tools` (function calling)
 * and Anthropic's `tools`. `join` is left out: a program joins for its model (over MCP, or the step
 * API's reset), and the model only plays. Served at GET /api/agent/tools?format=openai|anthropic.
 */
import { TOOLS, type ArgsSchema, type ToolDef } from './tools.js';

export const FORMATS = ['openai', 'anthropic'] as const;
export type ToolFormat = (typeof FORMATS)[number];

export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: ArgsSchema };
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ArgsSchema;
}

/** The tools a model plays with (every tool but join and the game master's). */
export function playTools(): ToolDef[] {
  return TOOLS.filter((t) => t.kind !== 'session' && t.kind !== 'gm');
}

export function openAiTools(): OpenAiTool[] {
  return playTools().map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: structuredClone(t.input) } }));
}

export function anthropicTools(): AnthropicTool[] {
  return playTools().map((t) => ({ name: t.name, description: t.description, input_schema: structuredClone(t.input) }));
}

export function toolsIn(format: ToolFormat): OpenAiTool[] | AnthropicTool[] {
  return format === 'openai' ? openAiTools() : anthropicTools();
}
