// The official TypeScript client (@modelcontextprotocol/client 2.4.0) against a fastmcp server
// over stdio, spawned by the client's StdioClientTransport, in one of its version negotiation
// modes: pin (2026-07-28), auto (server/discover on a throwaway sibling process, then the real
// one: it must end up modern) or legacy (the default: initialize, 2025-11-25).
// Usage: node stdio.mjs pin|auto|legacy COMMAND [ARGS...]
//   e.g. node stdio.mjs legacy fastmcp-bench serve --stdio
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Checks, answerInputs, assert, assertEqual, capabilities, eraOf, negotiation, textOf, waitFor } from './lib.mjs';

const [mode, command, ...args] = process.argv.slice(2);
if (!command || !(mode in negotiation)) {
  console.error('usage: node stdio.mjs pin|auto|legacy COMMAND [ARGS...]');
  process.exit(2);
}
const era = eraOf[mode];

const checks = new Checks(`client-2.4.0/stdio/${mode}`);
const client = new Client(
  { name: 'fastmcp-interop', version: '0.0.1' },
  {
    capabilities,
    versionNegotiation: negotiation[mode],
    inputRequired: { autoFulfill: true, maxRounds: 10 },
  },
);
answerInputs(client);
const logs = [];
client.setNotificationHandler('notifications/message', (n) => { logs.push(n.params.data); });
const sleepStats = async () => (await client.callTool({ name: 'sleep_stats', arguments: {} })).structuredContent;

await checks.run(`connect (spawn, ${mode}: ${era.era} ${era.version})`, async () => {
  await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
  assertEqual(client.getProtocolEra(), era.era, 'era');
  assertEqual(client.getNegotiatedProtocolVersion(), era.version, 'version');
});
if (checks.failed) checks.finish(); // nothing else can pass without a connection

await checks.run('tools/list', async () => {
  const { tools } = await client.listTools();
  for (const want of ['echo', 'sleep', 'sleep_stats']) {
    assert(tools.some((t) => t.name === want), `tool ${want} listed`);
  }
  return `${tools.length} tools`;
});

await checks.run('tools/call echo round-trips non-ASCII text', async () => {
  for (const text of ['héllo wörld', '日本語のテキスト', 'emoji 🚀🎉 and \u2028 line separator', 'quotes " and \\ backslash\nnewline']) {
    assertEqual(textOf(await client.callTool({ name: 'echo', arguments: { text } })), text, 'echo');
  }
});

await checks.run('progress callbacks (sleep 100 ms)', async () => {
  const ticks = [];
  await client.callTool({ name: 'sleep', arguments: { ms: 100 } }, { onprogress: (p) => ticks.push(p.progress) });
  assert(ticks.length >= 2, `progress updates (got ${ticks.length})`);
});

await checks.run('asking the user a question (greet_user), elicitation + sampling + roots', async () => {
  assertEqual(textOf(await client.callTool({ name: 'greet_user', arguments: {} })), 'Hello, Ada!', 'greet_user');
  const r = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} });
  assertEqual(textOf(r), 'Name: Ada; Greeting: Bonjour!; Roots: 1', 'text');
});

if (era.era === 'legacy') {
  await checks.run('logging/setLevel debug and notifications/message (test_tool_with_logging)', async () => {
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await waitFor(() => logs.length >= 3, 3000, 'three log messages');
    assertEqual(logs, ['Tool execution started', 'Tool processing data', 'Tool execution completed'], 'messages');
  });
}

await checks.run('abort a long call after 100 ms; the server sees it cancelled', async () => {
  const before = await sleepStats();
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const started = Date.now();
  let aborted = false;
  try {
    await client.callTool({ name: 'sleep', arguments: { ms: 10000 } }, { signal: ac.signal });
  } catch {
    aborted = true;
  }
  assert(aborted, 'the aborted call rejected');
  assert(Date.now() - started < 5000, 'the abort returned promptly');
  await waitFor(async () => (await sleepStats()).cancelled > before.cancelled, 5000, 'sleep_stats.cancelled to grow');
});

await checks.run('a further call succeeds', async () => {
  assertEqual(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still here' } })), 'still here', 'echo');
});

await client.close();
checks.finish();
