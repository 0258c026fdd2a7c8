// The official TypeScript clients against a fastmcp gateway (serve --backend) aggregating three
// servers that are not ours: "sdk" (the SDK 1.32.2 server, servers/sdk-1.mjs, over stdio)
// "gosdk" (go-sdk's everything-server over HTTP), both initialize-era, and "mcpgo" (mcp-go's
// conformance example over HTTP, which negotiates 2026-07-28 with the gateway). Each client
// lists the namespaced catalog, calls a tool of each backend, reads a resource and gets a
// prompt of one, and answers an elicitation of the legacy go-sdk backend: a 2026-07-28 client
// (pin, auto) as an input_required round, a legacy one as the real elicitation/create the
// gateway's bridge sends it.
// Usage: node gateway.mjs http://127.0.0.1:PORT/mcp [pin|auto|legacy|sdk]
//   pin, auto, legacy: the 2.4.0 client (@modelcontextprotocol/client) in that negotiation mode;
//   sdk: the SDK 1.32.2 client (@modelcontextprotocol/sdk), initialize only.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Checks, assert, assertEqual, eraOf, negotiation, textOf } from './lib.mjs';

const [url, mode = 'pin'] = process.argv.slice(2);
if (!url || !(mode in negotiation || mode === 'sdk')) {
  console.error('usage: node gateway.mjs URL [pin|auto|legacy|sdk]');
  process.exit(2);
}

const answers = { username: 'ada', email: 'ada@example.com' };
const asked = [];
const elicit = async (params) => {
  asked.push(params.message);
  const props = Object.keys(params.requestedSchema?.properties ?? {});
  return { action: 'accept', content: Object.fromEntries(props.map((p) => [p, answers[p] ?? 'x'])) };
};

let client, label, want;
if (mode === 'sdk') {
  label = 'sdk-1.32.2/gateway';
  want = { era: 'legacy', version: '2025-11-25' };
  client = new Sdk1Client({ name: 'fastmcp-interop-gateway', version: '0.0.1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => elicit(req.params));
} else {
  label = `client-2.4.0/gateway/${mode}`;
  want = eraOf[mode];
  client = new Client(
    { name: 'fastmcp-interop-gateway', version: '0.0.1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: negotiation[mode], inputRequired: { autoFulfill: true, maxRounds: 10 } },
  );
  client.setRequestHandler('elicitation/create', async (req) => elicit(req.params));
}
const checks = new Checks(label);

await checks.run(`connect (${want.era} ${want.version})`, async () => {
  if (mode === 'sdk') {
    const transport = new Sdk1Transport(new URL(url));
    await client.connect(transport);
    assertEqual(transport.protocolVersion, want.version, 'negotiated version');
  } else {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    assertEqual(client.getProtocolEra(), want.era, 'era');
    assertEqual(client.getNegotiatedProtocolVersion(), want.version, 'version');
  }
  const caps = client.getServerCapabilities();
  assert(caps.tools && caps.prompts && caps.resources, `capabilities ${JSON.stringify(caps)}`);
  return `${client.getServerVersion().name} ${client.getServerVersion().version}`;
});
if (checks.failed) checks.finish(); // nothing else can pass without a connection

await checks.run('tools/list: every backend, namespaced', async () => {
  const names = (await client.listTools()).tools.map((t) => t.name);
  for (const want of ['sdk__echo', 'sdk__add', 'mcpgo__test_simple_text', 'gosdk__test_simple_text', 'gosdk__test_elicitation']) {
    assert(names.includes(want), `tool ${want} listed (got ${names.join(',')})`);
  }
  assert(!names.includes('echo'), 'no tool served under its backend name');
  const per = (p) => names.filter((n) => n.startsWith(p)).length;
  return `${names.length} tools: sdk ${per('sdk__')}, mcpgo ${per('mcpgo__')}, gosdk ${per('gosdk__')}`;
});

await checks.run('tools/call sdk__echo (stdio backend, non-ASCII)', async () => {
  assertEqual(textOf(await client.callTool({ name: 'sdk__echo', arguments: { text: 'héllo — 日本語' } })), 'echo: héllo — 日本語', 'echo');
  const r = await client.callTool({ name: 'sdk__add', arguments: { a: 2, b: 3 } });
  assertEqual(r.structuredContent, { sum: 5 }, 'add');
});

for (const b of ['mcpgo', 'gosdk']) {
  await checks.run(`tools/call ${b}__test_simple_text`, async () => {
    assertEqual(textOf(await client.callTool({ name: `${b}__test_simple_text`, arguments: {} })), 'This is a simple text response for testing.', 'text');
  });
}

await checks.run('resources/read sdk+interop://greeting, prompts/get sdk__greet', async () => {
  const r = await client.readResource({ uri: 'sdk+interop://greeting' });
  assertEqual(r.contents[0].text, 'hello from interop-sdk-1', 'greeting');
  assertEqual(r.contents[0].uri, 'sdk+interop://greeting', 'the gateway\'s URI');
  const p = await client.getPrompt({ name: 'sdk__greet', arguments: { name: 'Ada' } });
  assertEqual(p.messages[0].content.text, 'Hello, Ada!', 'greet');
});

// The elicitation of the initialize-era go-sdk backend: it asks with a real
// elicitation/create during its call, which the gateway turns into what this client's era
// expects. (mcp-go's test_elicitation cannot ask: mcp-go v1.2.1 speaks 2026-07-28 with the
// gateway, and refuses server-initiated requests in that revision.)
const how = want.era === 'modern' ? 'an input_required round' : 'a real elicitation/create';
await checks.run(`elicitation of gosdk (legacy backend) answered as ${how}`, async () => {
  const before = asked.length;
  const r = await client.callTool({ name: 'gosdk__test_elicitation', arguments: { message: 'Who are you (go-sdk)?' } });
  assertEqual(textOf(r), 'Elicitation result: action=accept, content=map[username:ada]', 'result');
  assertEqual(asked.slice(before), ['Who are you (go-sdk)?'], 'elicitations answered');
});

await checks.run('errors: unknown namespaced tool, unknown backend', async () => {
  for (const name of ['sdk__no_such_tool', 'nobody__echo']) {
    let code;
    try {
      const r = await client.callTool({ name, arguments: {} });
      if (r.isError) code = 'isError';
    } catch (err) {
      code = err.code;
    }
    assert(code !== undefined, `${name} rejected`);
  }
  assertEqual(textOf(await client.callTool({ name: 'sdk__echo', arguments: { text: 'ok' } })), 'echo: ok', 'served after errors');
});

await client.close();
checks.finish();
