// A small MCP server on the official TypeScript v2 SDK (@modelcontextprotocol/server 2.4.0, HTTP
// through @modelcontextprotocol/node's toNodeHandler), for testing fastmcp's Go client against a
// server that is not ours. One factory serves both eras: 2026-07-28 (modern) and the stateless
// 2025-era fallback over HTTP; over stdio, serveStdio picks the era from the opening exchange.
//
// Usage: node ts-v2.mjs http [PORT]   prints {"url":"http://127.0.0.1:PORT/mcp"} once listening
//        node ts-v2.mjs stdio         serves on stdin/stdout (logs go to stderr)
//
// Catalog (kept small and identical to sdk-1.mjs, so one Go test table covers both servers):
//   tools   echo {text} -> text "echo: <text>"; add {a,b} -> structuredContent {sum};
//           progress {steps} -> reports steps progress notifications, then text "done <steps>"
//   resource  interop://greeting (text/plain "hello from <name>")
//   prompt    greet {name} -> one user message "Hello, <name>!"
import http from 'node:http';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';

const NAME = 'interop-ts-v2';

function factory() {
  const server = new McpServer({ name: NAME, version: '2.4.0' }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
  server.registerTool(
    'echo',
    {
      description: 'Echoes its text argument',
      inputSchema: fromJsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
    },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: fromJsonSchema({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }),
      outputSchema: fromJsonSchema({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }),
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool(
    'progress',
    {
      description: 'Sends steps progress notifications before answering',
      inputSchema: fromJsonSchema({ type: 'object', properties: { steps: { type: 'integer', minimum: 0, maximum: 100 } }, required: ['steps'] }),
    },
    async ({ steps }, ctx) => {
      const token = ctx.mcpReq?._meta?.progressToken;
      if (token !== undefined) {
        for (let i = 1; i <= steps; i++) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
        }
      }
      return { content: [{ type: 'text', text: `done ${steps}` }] };
    },
  );
  server.registerResource('greeting', 'interop://greeting', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: `hello from ${NAME}` }],
  }));
  server.registerPrompt(
    'greet',
    { description: 'Greets someone', argsSchema: fromJsonSchema({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }) },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }),
  );
  return server;
}

const [mode, port = '0'] = process.argv.slice(2);
if (mode === 'stdio') {
  serveStdio(factory, { onerror: (e) => console.error(`${NAME}: ${e.message}`) });
} else if (mode === 'http') {
  const handler = toNodeHandler(createMcpHandler(factory, { onerror: (e) => console.error(`${NAME}: ${e.message}`) }));
  const srv = http.createServer((req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    void handler(req, res);
  });
  srv.listen(Number(port), '127.0.0.1', () => {
    console.log(JSON.stringify({ url: `http://127.0.0.1:${srv.address().port}/mcp` }));
  });
  const stop = () => srv.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  console.error('usage: node ts-v2.mjs http [PORT] | stdio');
  process.exit(2);
}
