// The ten-line MCP agent of the README: npx tsx clients/mcp-example.ts [http://localhost:3000/mcp]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const headers: Record<string, string> = process.env.LIGHTMUD_AGENT_KEY ? { Authorization: `Bearer ${process.env.LIGHTMUD_AGENT_KEY}` } : {};
const client = new Client({ name: 'my-agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2] ?? 'http://localhost:3000/mcp'), { requestInit: { headers } }));
let r = await client.callTool({ name: 'join', arguments: {} }); // any free character
for (let turn = 0; turn < 5; turn++) {
  const { validActions } = r.structuredContent as { validActions: string[] };
  const [verb, ...rest] = (validActions[0] ?? 'say hello').split(' ');
  r = verb === 'get' && !rest.includes('from') ? await client.callTool({ name: 'get', arguments: { object: rest.join(' ') } }) : await client.callTool({ name: 'say', arguments: { text: `I could ${validActions[0] ?? 'wait'}.` } });
  console.log((r.content as { text: string }[])[0]!.text.split('\n\n')[0]);
}
await client.close();
