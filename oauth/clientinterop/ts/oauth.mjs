// The official TypeScript client (@modelcontextprotocol/client 2.4.0) authorizing against a
// fastmcp endpoint behind the oauth gate, with the oauthtest authorization server: a
// pre-registered public client, the authorization code flow with PKCE and the resource
// indicator, the user agent played by a fetch that stops at the redirect. It connects
// (401, discovery, authorization), calls whoami, then write, which needs a scope the first
// token lacks (403 insufficient_scope: step-up), and prints one JSON line of what it saw.
// Usage: node oauth.mjs http://127.0.0.1:PORT/mcp [pin|legacy]
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

const [url, mode = 'pin'] = process.argv.slice(2);
const negotiation = { pin: { mode: { pin: '2026-07-28' } }, legacy: undefined };
if (!url || !(mode in negotiation)) {
  console.error('usage: node oauth.mjs URL [pin|legacy]');
  process.exit(2);
}

class Provider {
  constructor() {
    this.saved = undefined;
    this.verifier = '';
    this.pending = undefined; // the redirect's query, for finishAuth
    this.scopes = []; // the scope of each authorization request
  }
  get redirectUrl() { return 'http://127.0.0.1:1/callback'; }
  get clientMetadata() {
    return { client_name: 'fastmcp-interop', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code'],
      response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return { client_id: 'mcp-client' }; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  async redirectToAuthorization(authorizationUrl) {
    this.scopes.push(authorizationUrl.searchParams.get('scope'));
    const resp = await fetch(authorizationUrl, { redirect: 'manual' });
    if (resp.status !== 302) throw new Error(`authorization endpoint answered ${resp.status}`);
    this.pending = new URL(resp.headers.get('location')).searchParams;
  }
}

const provider = new Provider();
let transport;
const client = new Client({ name: 'fastmcp-oauth-interop', version: '0.0.1' }, { versionNegotiation: negotiation[mode] });

// retry runs op, finishing an authorization the client started (UnauthorizedError) and
// trying again, at most twice.
async function retry(op) {
  for (let i = 0; ; i++) {
    try {
      return await op();
    } catch (e) {
      if (i >= 2 || !provider.pending || !(e instanceof UnauthorizedError || /nauthori|scope/i.test(String(e)))) throw e;
      const pending = provider.pending;
      provider.pending = undefined;
      await transport.finishAuth(pending);
    }
  }
}

const seen = {};
try {
  await retry(async () => {
    transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    await client.connect(transport);
  });
  seen.era = client.getProtocolEra();
  const text = (r) => r.content.map((c) => c.text).join('');
  seen.whoami = text(await retry(() => client.callTool({ name: 'whoami', arguments: {} })));
  try {
    seen.write = text(await retry(() => client.callTool({ name: 'write', arguments: {} })));
  } catch (e) {
    if (e.code === undefined) throw e;
    seen.write = `error ${e.code}: ${e.message}`; // a JSON-RPC error: the component-boundary refusal
  }
  seen.scopes = provider.scopes;
  await client.close();
} catch (e) {
  seen.error = String(e && e.stack || e);
  seen.scopes = provider.scopes;
}
console.log(JSON.stringify(seen));
process.exit(seen.error ? 1 : 0);
