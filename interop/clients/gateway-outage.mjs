// A backend of the gateway (serve --backend, the aggregation of clients/gateway.mjs) killed in
// the middle of a call, and brought back, seen by the official 2.4.0 client pinned to
// 2026-07-28.
//
//   node gateway-outage.mjs URL kill PID BACKEND_URL
//     calls gosdk__test_elicitation; go-sdk's call then waits for the elicitation's answer, and
//     the client's input handler kills PID (the go-sdk process serving BACKEND_URL) with
//     SIGKILL, waits until its port refuses connections, and only then answers: the call must
//     fail with -32603 'Backend "gosdk" is unavailable', and the other backends keep serving.
//   node gateway-outage.mjs URL back TOOL TEXT [ARGS_JSON]
//     calls TOOL (with ARGS_JSON, default {}) until its text is TEXT (the backend is back, the gateway never restarted),
//     at most 60 s.
import net from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Checks, assert, assertEqual, negotiation, textOf, waitFor } from './lib.mjs';

const [url, what, ...args] = process.argv.slice(2);
if (!url || !((what === 'kill' && args.length === 2) || (what === 'back' && [2, 3].includes(args.length)))) {
  console.error('usage: node gateway-outage.mjs URL kill PID BACKEND_URL | URL back TOOL TEXT [ARGS_JSON]');
  process.exit(2);
}

const refused = (port) => new Promise((resolve) => {
  const s = net.connect({ host: '127.0.0.1', port }, () => { s.destroy(); resolve(false); });
  s.on('error', () => resolve(true));
});

const checks = new Checks(`client-2.4.0/gateway-outage/${what}`);
let onElicit = async () => ({ action: 'decline' });
const client = new Client(
  { name: 'fastmcp-interop-outage', version: '0.0.1' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: negotiation.pin, inputRequired: { autoFulfill: true, maxRounds: 10 } },
);
client.setRequestHandler('elicitation/create', (req) => onElicit(req.params));

// rejection runs a call that must fail, and returns its error.
async function rejection(name, args = {}) {
  try {
    const r = await client.callTool({ name, arguments: args });
    throw new Error(`${name} succeeded: ${JSON.stringify(r)}`);
  } catch (err) {
    if (err.code === undefined) throw err;
    return err;
  }
}

function unavailable(err, backend) {
  assertEqual(err.code, -32603, 'code');
  assert(err.message.includes(`Backend "${backend}" is unavailable`), `message ${JSON.stringify(err.message)}`);
}

await client.connect(new StreamableHTTPClientTransport(new URL(url)));

if (what === 'kill') {
  const [pid, backendURL] = [Number(args[0]), new URL(args[1])];
  await checks.run('go-sdk killed while its call waits for an elicitation: the caller gets -32603 unavailable', async () => {
    let killed = false;
    onElicit = async () => {
      process.kill(pid, 'SIGKILL');
      killed = true;
      await waitFor(() => refused(Number(backendURL.port)), 10000, `port ${backendURL.port} to refuse connections`);
      return { action: 'accept', content: { username: 'ada' } };
    };
    const err = await rejection('gosdk__test_elicitation', { message: 'Who are you?' });
    assert(killed, 'the backend was asked and killed mid-call');
    unavailable(err, 'gosdk');
    return `${err.code} ${err.message}`;
  });
  await checks.run('the other backends keep serving (sdk over stdio, mcpgo over HTTP)', async () => {
    assertEqual(textOf(await client.callTool({ name: 'sdk__echo', arguments: { text: 'still here' } })), 'echo: still here', 'sdk__echo');
    assertEqual(textOf(await client.callTool({ name: 'mcpgo__test_simple_text', arguments: {} })), 'This is a simple text response for testing.', 'mcpgo');
  });
  await checks.run('a new call to the dead backend is refused at once, its tools still listed', async () => {
    const started = Date.now();
    unavailable(await rejection('gosdk__test_simple_text'), 'gosdk');
    assert(Date.now() - started < 5000, `refused within 5 s (took ${Date.now() - started} ms)`);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert(names.includes('gosdk__test_simple_text'), 'gosdk__test_simple_text still listed');
  });
} else {
  const [tool, text, argsJSON = '{}'] = args;
  await checks.run(`${tool} answers again`, async () => {
    const started = Date.now();
    let last;
    await waitFor(async () => {
      try {
        last = textOf(await client.callTool({ name: tool, arguments: JSON.parse(argsJSON) }));
      } catch (err) {
        last = `${err.code} ${err.message}`;
      }
      if (last !== text) await new Promise((r) => setTimeout(r, 100)); // calls 10 a second
      return last === text;
    }, 60000, `${tool} to answer ${JSON.stringify(text)} (last: ${last})`);
    return `after ${Date.now() - started} ms`;
  });
}

await client.close();
checks.finish();
