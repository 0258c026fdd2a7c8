// Shared helpers for the interop client scripts: a tiny check runner and the input handlers
// the official client uses to fulfil multi round-trip (input_required) results.

/** Runs named async checks in order; prints one line per check and a summary; exits 1 on failure. */
export class Checks {
  constructor(label) {
    this.label = label;
    this.passed = 0;
    this.failed = 0;
  }

  async run(name, fn) {
    const start = performance.now();
    try {
      const detail = await fn();
      this.passed++;
      const ms = Math.round(performance.now() - start);
      console.log(`ok   ${this.label}: ${name} (${ms} ms)${detail ? ` - ${detail}` : ''}`);
    } catch (err) {
      this.failed++;
      console.log(`FAIL ${this.label}: ${name}: ${err?.stack ?? err}`);
    }
  }

  finish() {
    console.log(`${this.label}: ${this.passed} passed, ${this.failed} failed`);
    process.exit(this.failed === 0 ? 0 : 1);
  }
}

export function assert(cond, message) {
  if (!cond) throw new Error(`assertion failed: ${message}`);
}

export function assertEqual(got, want, what) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  if (g !== w) throw new Error(`${what}: got ${g}, want ${w}`);
}

/** The text of the first text block of a CallToolResult or GetPromptResult message. */
export function textOf(result) {
  const block = result.content?.find((c) => c.type === 'text');
  if (!block) throw new Error(`no text block in ${JSON.stringify(result)}`);
  return block.text;
}

/** Resolves when pred() is true, polling every 10 ms; rejects after ms. */
export async function waitFor(pred, ms, what) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/**
 * The versionNegotiation option of each mode the scripts take. legacy is the client's default:
 * the option is left out, as an application that never heard of negotiation leaves it.
 */
export const negotiation = {
  pin: { mode: { pin: '2026-07-28' } },
  auto: { mode: 'auto' },
  legacy: undefined,
};

/** What each mode must negotiate with fastmcp, which serves both eras. */
export const eraOf = {
  pin: { era: 'modern', version: '2026-07-28' },
  auto: { era: 'modern', version: '2026-07-28' },
  legacy: { era: 'legacy', version: '2025-11-25' },
};

/** Capabilities for the input requests our fixtures make (elicitation, sampling, roots). */
export const capabilities = { elicitation: { form: {} }, sampling: {}, roots: {} };

/** Registers answers for elicitation, sampling and roots input requests on client. */
export function answerInputs(client) {
  const answers = { name: 'Ada', color: 'green', ok: true, context: 'interop context', value: 'v' };
  client.setRequestHandler('elicitation/create', async (req) => {
    const props = Object.keys(req.params.requestedSchema?.properties ?? {});
    const content = Object.fromEntries(props.map((p) => [p, answers[p] ?? 'x']));
    return { action: 'accept', content };
  });
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant', model: 'interop-stub', stopReason: 'endTurn', content: { type: 'text', text: 'Bonjour!' },
  }));
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///workspace', name: 'workspace' }] }));
}
