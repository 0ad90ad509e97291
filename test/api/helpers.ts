/** An MCP client (the official SDK's) on a test server's /mcp, optionally with an agent key. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Observation } from '../../server/api/observation.js';

export interface McpAgent {
  client: Client;
  transport: StreamableHTTPClientTransport;
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; text: string; obs: Observation }>;
  close(): Promise<void>;
}

export async function mcpAgent(httpPort: number, key?: string): Promise<McpAgent> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${httpPort}/mcp`), key ? { requestInit: { headers: { Authorization: `Bearer ${key}` } } } : {});
  const client = new Client({ name: 'lightmud-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    async call(name, args = {}) {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const first = r.content[0];
      return { isError: r.isError === true, text: first?.type === 'text' ? first.text : '', obs: r.structuredContent as Observation };
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}
