// The official TypeScript client (@modelcontextprotocol/client 2.4.0) against a fastmcp server
// over Streamable HTTP serving the demo and conformance catalogs, in one of its version
// negotiation modes: pin (2026-07-28 only), auto (server/discover, falling back to initialize:
// against fastmcp it must end up modern) or legacy (the client's default: initialize, which
// must negotiate 2025-11-25). The same input handlers answer 2026-07-28 input_required
// results (auto-fulfilled) and the initialize era's real elicitation, sampling and roots
// requests.
// Usage: node http.mjs http://127.0.0.1:PORT/mcp [pin|auto|legacy]
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Checks, answerInputs, assert, assertEqual, capabilities, eraOf, negotiation, textOf, waitFor } from './lib.mjs';

const [url, mode = 'pin'] = process.argv.slice(2);
if (!url || !(mode in negotiation)) {
  console.error('usage: node http.mjs URL [pin|auto|legacy]');
  process.exit(2);
}
const era = eraOf[mode];

const checks = new Checks(`client-2.4.0/http/${mode}`);
const client = new Client(
  { name: 'fastmcp-interop', version: '0.0.1' },
  {
    capabilities,
    versionNegotiation: negotiation[mode],
    inputRequired: { autoFulfill: true, maxRounds: 10 },
  },
);
answerInputs(client);

const notes = { toolsChanged: 0, promptsChanged: 0, updated: [] };
client.setNotificationHandler('notifications/tools/list_changed', () => { notes.toolsChanged++; });
client.setNotificationHandler('notifications/prompts/list_changed', () => { notes.promptsChanged++; });
client.setNotificationHandler('notifications/resources/updated', (n) => { notes.updated.push(n.params.uri); });

const sleepStats = async () => (await client.callTool({ name: 'sleep_stats', arguments: {} })).structuredContent;

await checks.run(`connect (${mode}: ${era.era} ${era.version})`, async () => {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  assertEqual(client.getProtocolEra(), era.era, 'era');
  assertEqual(client.getNegotiatedProtocolVersion(), era.version, 'version');
  const caps = client.getServerCapabilities();
  assert(caps.tools && caps.prompts && caps.resources, `capabilities ${JSON.stringify(caps)}`);
  return `${client.getServerVersion().name} ${client.getServerVersion().version}`;
});
if (checks.failed) checks.finish(); // nothing else can pass without a connection

await checks.run('tools/list', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ['echo', 'sleep', 'sleep_stats', 'panic', 'region_echo', 'bump', 'toggle', 'test_simple_text']) {
    assert(names.includes(want), `tool ${want} listed (got ${names.join(',')})`);
  }
  if (era.era === 'modern') {
    const region = tools.find((t) => t.name === 'region_echo');
    assertEqual(region.inputSchema.properties.region['x-mcp-header'], 'Region', 'region x-mcp-header');
  }
  return `${tools.length} tools`;
});

await checks.run('tools/call echo (non-ASCII)', async () => {
  const text = 'héllo wörld — 日本語 🚀';
  assertEqual(textOf(await client.callTool({ name: 'echo', arguments: { text } })), text, 'echo');
});

await checks.run('tools/call region_echo (Mcp-Param-Region mirrored, base64 for non-ASCII)', async () => {
  assertEqual(textOf(await client.callTool({ name: 'region_echo', arguments: { region: 'us-west1', text: 'hi' } })), 'us-west1: hi', 'ascii');
  assertEqual(textOf(await client.callTool({ name: 'region_echo', arguments: { region: 'Zürich', text: 'grüezi' } })), 'Zürich: grüezi', 'non-ascii');
});

await checks.run('tools/call test_simple_text', async () => {
  assertEqual(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} })), 'This is a simple text response for testing.', 'text');
});

await checks.run('asking the user a question (greet_user)', async () => {
  assertEqual(textOf(await client.callTool({ name: 'greet_user', arguments: {} })), 'Hello, Ada!', 'greet_user');
});

await checks.run('input handlers: elicitation, two rounds', async () => {
  const r = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
  assertEqual(textOf(r), 'Multi-round complete for Ada who likes green', 'text');
});

await checks.run('input handlers: elicitation + sampling + roots in one round', async () => {
  const r = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} });
  assertEqual(textOf(r), 'Name: Ada; Greeting: Bonjour!; Roots: 1', 'text');
});

await checks.run('input handlers: prompts/get', async () => {
  const r = await client.getPrompt({ name: 'test_input_required_result_prompt' });
  assertEqual(r.messages[0].content.text, 'Prompt with context: interop context', 'prompt text');
});

await checks.run('progress callbacks (test_tool_with_progress, sleep 200 ms)', async () => {
  const seen = [];
  await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, { onprogress: (p) => seen.push(p.progress) });
  assertEqual(seen, [0, 50, 100], 'fixture progress');
  const ticks = [];
  const r = await client.callTool({ name: 'sleep', arguments: { ms: 200 } }, { onprogress: (p) => ticks.push(p.progress) });
  assertEqual(textOf(r), 'slept 200 ms', 'sleep result');
  assert(ticks.length >= 3, `at least 3 progress updates (got ${ticks.length})`);
  assert(ticks.every((v, i) => i === 0 || v > ticks[i - 1]), `increasing progress ${ticks}`);
  return `${ticks.length} sleep updates`;
});

await checks.run('resources/read and prompts/get', async () => {
  const r = await client.readResource({ uri: 'demo://counter' });
  assert(/^\d+$/.test(r.contents[0].text), `counter ${r.contents[0].text}`);
  const p = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  assertEqual(p.messages[0].content.text, 'Hello, Ada!', 'greet');
});

if (era.era === 'legacy') {
  await checks.run('logging/setLevel and notifications/message (test_tool_with_logging)', async () => {
    const logs = [];
    client.setNotificationHandler('notifications/message', (n) => { logs.push(n.params.data); });
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await waitFor(() => logs.length >= 3, 3000, 'three log messages');
    assertEqual(logs, ['Tool execution started', 'Tool processing data', 'Tool execution completed'], 'messages');
  });
}

if (era.era === 'modern') await checks.run('subscriptions/listen: tools/list_changed (toggle) and resources/updated (bump)', async () => {
  const sub = await client.listen({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['demo://counter'] });
  try {
    assert(sub.honoredFilter.toolsListChanged, `honored ${JSON.stringify(sub.honoredFilter)}`);
    const before = notes.toolsChanged;
    assertEqual(textOf(await client.callTool({ name: 'toggle', arguments: {} })), 'extra added', 'toggle');
    await waitFor(() => notes.toolsChanged > before, 3000, 'tools/list_changed');
    const { tools } = await client.listTools({}, { cacheMode: 'bypass' });
    assert(tools.some((t) => t.name === 'extra'), 'extra listed after toggle');
    assertEqual(textOf(await client.callTool({ name: 'extra', arguments: {} })), 'extra', 'extra');
    const n = Number(textOf(await client.callTool({ name: 'bump', arguments: {} })));
    await waitFor(() => notes.updated.includes('demo://counter'), 3000, 'resources/updated demo://counter');
    const r = await client.readResource({ uri: 'demo://counter' }, { cacheMode: 'bypass' });
    assertEqual(Number(r.contents[0].text), n, 'counter after bump');
    const pbefore = notes.promptsChanged;
    if ((await client.listTools()).tools.some((t) => t.name === 'test_trigger_prompt_change')) {
      await client.callTool({ name: 'test_trigger_prompt_change', arguments: {} });
      await waitFor(() => notes.promptsChanged > pbefore, 3000, 'prompts/list_changed');
    }
    const again = notes.toolsChanged;
    assertEqual(textOf(await client.callTool({ name: 'toggle', arguments: {} })), 'extra removed', 'toggle back');
    await waitFor(() => notes.toolsChanged > again, 3000, 'second tools/list_changed');
  } finally {
    await sub.close();
  }
  assertEqual(await sub.closed, 'local', 'subscription close');
});

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
  const after = await sleepStats();
  assertEqual(after.completed, before.completed, 'no sleep completed');
  return `cancelled ${before.cancelled} -> ${after.cancelled}`;
});

await checks.run('a further call succeeds', async () => {
  assertEqual(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still here' } })), 'still here', 'echo');
});

await checks.run('errors: unknown tool, panicking tool, bad arguments', async () => {
  let code;
  try {
    await client.callTool({ name: 'no_such_tool', arguments: {} });
  } catch (err) {
    code = err.code;
  }
  assert(code !== undefined, 'unknown tool rejected');
  let panicked = false;
  try {
    const r = await client.callTool({ name: 'panic', arguments: {} });
    panicked = r.isError === true;
  } catch (err) {
    panicked = err.code === -32603;
  }
  assert(panicked, 'panic answered as an error');
  const bad = await client.callTool({ name: 'echo', arguments: { text: 42 } });
  assertEqual(bad.isError, true, 'schema violation is a tool error');
  assertEqual(textOf(await client.callTool({ name: 'echo', arguments: { text: 'ok' } })), 'ok', 'served after errors');
});

await client.close();
checks.finish();
