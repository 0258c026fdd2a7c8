// The official TypeScript client (@modelcontextprotocol/client, pinned to 2026-07-28) against a
// fastmcp server over stdio, spawned by the client's StdioClientTransport.
// Usage: node stdio.mjs <command> [args...]   e.g. node stdio.mjs fastmcp-bench serve --stdio
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Checks, answerInputs, assert, assertEqual, capabilities, textOf, waitFor } from './lib.mjs';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node stdio.mjs COMMAND [ARGS...]');
  process.exit(2);
}

const checks = new Checks('client/stdio');
const client = new Client(
  { name: 'fastmcp-interop', version: '0.0.1' },
  {
    capabilities,
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    inputRequired: { autoFulfill: true, maxRounds: 10 },
  },
);
answerInputs(client);
const sleepStats = async () => (await client.callTool({ name: 'sleep_stats', arguments: {} })).structuredContent;

await checks.run('connect (spawn, server/discover, pinned 2026-07-28)', async () => {
  await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
  assertEqual(client.getProtocolEra(), 'modern', 'era');
  assertEqual(client.getNegotiatedProtocolVersion(), '2026-07-28', 'version');
});

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
