// The official TypeScript client (@modelcontextprotocol/client, pinned to 2026-07-28) against a
// fastmcp server over Streamable HTTP serving the demo and conformance catalogs.
// Usage: node http.mjs http://127.0.0.1:PORT/mcp
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Checks, answerInputs, assert, assertEqual, capabilities, textOf, waitFor } from './lib.mjs';

const url = process.argv[2];
if (!url) {
  console.error('usage: node http.mjs URL');
  process.exit(2);
}

const checks = new Checks('client/http');
const client = new Client(
  { name: 'fastmcp-interop', version: '0.0.1' },
  {
    capabilities,
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    inputRequired: { autoFulfill: true, maxRounds: 10 },
  },
);
answerInputs(client);

const notes = { toolsChanged: 0, promptsChanged: 0, updated: [] };
client.setNotificationHandler('notifications/tools/list_changed', () => { notes.toolsChanged++; });
client.setNotificationHandler('notifications/prompts/list_changed', () => { notes.promptsChanged++; });
client.setNotificationHandler('notifications/resources/updated', (n) => { notes.updated.push(n.params.uri); });

const sleepStats = async () => (await client.callTool({ name: 'sleep_stats', arguments: {} })).structuredContent;

await checks.run('connect (server/discover, pinned 2026-07-28)', async () => {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  assertEqual(client.getProtocolEra(), 'modern', 'era');
  assertEqual(client.getNegotiatedProtocolVersion(), '2026-07-28', 'version');
  const caps = client.getServerCapabilities();
  assert(caps.tools && caps.prompts && caps.resources, `capabilities ${JSON.stringify(caps)}`);
  return `${client.getServerVersion().name} ${client.getServerVersion().version}`;
});

await checks.run('tools/list', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ['echo', 'sleep', 'sleep_stats', 'panic', 'region_echo', 'bump', 'toggle', 'test_simple_text']) {
    assert(names.includes(want), `tool ${want} listed (got ${names.join(',')})`);
  }
  const region = tools.find((t) => t.name === 'region_echo');
  assertEqual(region.inputSchema.properties.region['x-mcp-header'], 'Region', 'region x-mcp-header');
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

await checks.run('MRTR auto-fulfil: elicitation, two rounds', async () => {
  const r = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
  assertEqual(textOf(r), 'Multi-round complete for Ada who likes green', 'text');
});

await checks.run('MRTR auto-fulfil: elicitation + sampling + roots in one round', async () => {
  const r = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} });
  assertEqual(textOf(r), 'Name: Ada; Greeting: Bonjour!; Roots: 1', 'text');
});

await checks.run('MRTR auto-fulfil: prompts/get', async () => {
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

await checks.run('subscriptions/listen: tools/list_changed (toggle) and resources/updated (bump)', async () => {
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
