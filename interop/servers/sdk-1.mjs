// A small MCP server on the legacy TypeScript SDK (@modelcontextprotocol/sdk 1.32.2), which speaks
// only the initialize era (2025-11-25 and older), for testing fastmcp's Go client against a
// legacy server that is not ours. It uses the SDK's low-level Server with JSON Schemas written
// out, so the script needs no schema library of its own. HTTP is stateless (a fresh server and
// StreamableHTTPServerTransport per request, no Mcp-Session-Id), each response an SSE stream
// (the SDK's default), so that progress notifications reach the client.
//
// Usage: node sdk-1.mjs http [PORT]   prints {"url":"http://127.0.0.1:PORT/mcp"} once listening
//        node sdk-1.mjs stdio         serves on stdin/stdout
//
// Catalog: the same as ts-v2.mjs (echo, add, progress; interop://greeting; prompt greet).
import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const NAME = 'interop-sdk-1';
const obj = (properties, required) => ({ type: 'object', properties, required });
const tools = [
  { name: 'echo', description: 'Echoes its text argument', inputSchema: obj({ text: { type: 'string' } }, ['text']) },
  {
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: obj({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
    outputSchema: obj({ sum: { type: 'number' } }, ['sum']),
  },
  {
    name: 'progress',
    description: 'Sends steps progress notifications before answering',
    inputSchema: obj({ steps: { type: 'integer', minimum: 0, maximum: 100 } }, ['steps']),
  },
];

function newServer() {
  const server = new Server({ name: NAME, version: '1.32.2' }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = req.params.arguments ?? {};
    switch (req.params.name) {
      case 'echo':
        return { content: [{ type: 'text', text: `echo: ${args.text}` }] };
      case 'add': {
        const sum = Number(args.a) + Number(args.b);
        return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
      }
      case 'progress': {
        const steps = Number(args.steps ?? 0);
        const token = req.params._meta?.progressToken;
        if (token !== undefined) {
          for (let i = 1; i <= steps; i++) {
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
          }
        }
        return { content: [{ type: 'text', text: `done ${steps}` }] };
      }
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: 'interop://greeting', name: 'greeting', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    if (req.params.uri !== 'interop://greeting') throw new McpError(-32002, `Resource not found: ${req.params.uri}`);
    return { contents: [{ uri: req.params.uri, mimeType: 'text/plain', text: `hello from ${NAME}` }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [{ name: 'greet', description: 'Greets someone', arguments: [{ name: 'name', required: true }] }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    if (req.params.name !== 'greet') throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`);
    return { messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${req.params.arguments?.name}!` } }] };
  });
  return server;
}

const [mode, port = '0'] = process.argv.slice(2);
if (mode === 'stdio') {
  await newServer().connect(new StdioServerTransport());
} else if (mode === 'http') {
  const srv = http.createServer(async (req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== 'POST') {
      // Stateless: no standalone GET stream and no session to DELETE.
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (e) {
      console.error(`${NAME}: ${e.message}`);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  srv.listen(Number(port), '127.0.0.1', () => {
    console.log(JSON.stringify({ url: `http://127.0.0.1:${srv.address().port}/mcp` }));
  });
  const stop = () => srv.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  console.error('usage: node sdk-1.mjs http [PORT] | stdio');
  process.exit(2);
}
