#!/usr/bin/env bash
# The Go client's interop lane (issue 12), the last step of interop/run.sh:
#
#   1. fastmcp-bench call (the client package) against the official TypeScript v2 server
#      (servers/ts-v2.mjs) and the SDK 1.32.2 server (servers/sdk-1.mjs) over HTTP: era auto,
#      pinned legacy (with progress) and pinned modern (refused by the legacy-only SDK 1), then
#      each spawned over stdio (--command) in eras auto and legacy; then the client package's
#      legacy Listen test against the SDK 1.32.2 in its sessionful mode
#      (fixtures/sdk1_sessionful.mjs); then Connect and Close, 1,000 times each in the
#      initialize era, against every peer server of the lane (client.TestInteropCloseLoop):
#      the two TypeScript servers, the SDK 1.32.2 sessionful one, and the Go servers Close
#      once hung on (issue 21), go-sdk's conformance server in its sessionful mode and
#      mcp-go's conformance example, built from the bench/peers module;
#   2. the conformance suite's client mode with `fastmcp-bench conformance-client` as the
#      client under test, one run per scenario scored by --requirements 2026-07-28 (32, the
#      25 auth/* ones included) and 2025-11-25 (18), each at its revision's wire
#      (--spec-version), then the unscored extension scenarios client credentials (secret,
#      private_key_jwt) and DPoP (with and without nonces) at both wires (--force: the suite
#      runs extensions at 2025-11-25 by default). conformance-client's OAuth is the
#      client/oauth package.
#
#   interop/client-lane.sh [SCENARIO...]   (default: every scenario below)
#
# A scenario passes when the suite exits 0 (no FAILURE or WARNING check, no client error) and
# its checks.json has no FAILURE or WARNING. Uses the same .tools/ toolchain as run.sh (same
# stamp), every step bounded with timeout, servers stopped on exit. Exit 1 when any step fails.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=interop/toolchain.sh
source "$ROOT/interop/toolchain.sh"
T="$ROOT/.tools"
GO=${GO:-go}
NPM=${NPM:-npm}
AUTH=(auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
  auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
  auth/token-endpoint-auth-none auth/pre-registration) # scored by both revisions
MODERN=(tools_call request-metadata sep-2322-client-request-state http-standard-headers
  http-custom-headers http-invalid-tool-headers json-schema-ref-no-deref "${AUTH[@]}"
  auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported
  auth/authorization-server-migration auth/iss-supported auth/iss-not-advertised
  auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected auth/iss-normalized
  auth/metadata-issuer-mismatch)
LEGACY=(initialize tools_call elicitation-sep1034-client-defaults sse-retry "${AUTH[@]}")
# Unscored at both revisions ("extension"). Not run: auth/enterprise-managed-authorization
# and auth/wif-jwt-bearer, which need grants client/oauth does not implement (interop/README.md).
EXTENSIONS=(auth/client-credentials-jwt auth/client-credentials-basic auth/dpop auth/dpop-nonce)

mkdir -p "$T/bin" "$T/logs" "$T/servers" "$T/results"
PIDS=()
FAILED=0
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { echo "ok    $*"; }
fail() { echo "FAIL  $*"; FAILED=1; }

# ---- toolchain (the same stamp as run.sh's install_tools) ------------------------------------
want=$(cat interop/package.json interop/package-lock.json | sha256sum | cut -d' ' -f1)
have=$(cat "$T/npm.stamp" 2>/dev/null || true)
if [ "$want" != "$have" ] || [ ! -x "$T/node_modules/node/bin/node" ]; then
  ensure_npm "$T/logs/apt-get.log"
  rm -f "$T/npm.stamp"
  cp interop/package.json interop/package-lock.json "$T/"
  (cd "$T" && timeout --kill-after=10 480 "$NPM" ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$T/npm.stamp"
fi
export PATH="$T/node_modules/node/bin:$T/node_modules/.bin:$PATH"
cp interop/servers/*.mjs "$T/servers/" # they import the npm packages, so they run from .tools
BIN="$T/bin/fastmcp-bench"
timeout --kill-after=10 300 "$GO" build -o "$BIN" ./cmd/fastmcp-bench
timeout --kill-after=10 300 "$GO" test -c -o "$T/bin/client.test" ./client # the interop tests

# ---- 1. third-party servers ------------------------------------------------------------------

# start_node NAME SCRIPT: starts `node SCRIPT http`, sets URL from its {"url":...} line.
start_node() {
  local out="$T/logs/$1.stdout" pid
  node "$T/servers/$2" http >"$out" 2>"$T/logs/$1.stderr" &
  pid=$!
  PIDS+=("$pid")
  URL=""
  for _ in $(seq 100); do # a bounded wait for the line the server prints once listening
    URL=$(sed -n 's/^{"url":"\(http:[^"]*\)"}$/\1/p' "$out" 2>/dev/null | head -n 1)
    [ -n "$URL" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "client-lane: $1 printed no URL line; stderr:" >&2
  sed 's/^/  /' "$T/logs/$1.stderr" >&2
  return 1
}

# expect NAME WANT CMD...: CMD's stdout must contain WANT.
expect() {
  local name=$1 want=$2 out rc=0
  shift 2
  out=$(timeout --kill-after=5 30 "$@" 2>&1) || rc=$?
  if [ "$rc" -eq 0 ] && [[ "$out" == *"$want"* ]]; then ok "$name"; else fail "$name (exit $rc): $out"; fi
}

# expect_fail NAME WANT CMD...: CMD must exit 1 with WANT in its output.
expect_fail() {
  local name=$1 want=$2 out rc=0
  shift 2
  out=$(timeout --kill-after=5 30 "$@" 2>&1) || rc=$?
  if [ "$rc" -eq 1 ] && [[ "$out" == *"$want"* ]]; then ok "$name"; else fail "$name (exit $rc): $out"; fi
}

# close_loop NAME URL: Connect (initialize era) and Close 1,000 times against URL
# (client.TestInteropCloseLoop; every Close within 10 s).
close_loop() {
  local out
  out=$(timeout --kill-after=5 300 env FASTMCP_CLOSE_LOOP_URLS="$1=$2" \
    "$T/bin/client.test" -test.run '^TestInteropCloseLoop$' -test.v -test.timeout 280s 2>&1) || true
  if [[ "$out" == *"--- PASS: TestInteropCloseLoop/$1 "* ]]; then ok "$1 http: Connect/Close 1,000 times"; else fail "$1 http: Connect/Close 1,000 times: $out"; fi
}

if [ $# -eq 0 ]; then
  for s in ts-v2 sdk-1; do
    if start_node "$s" "$s.mjs"; then
      expect "$s http: call echo (auto)" 'echo: héllo' "$BIN" call "$URL" echo text=héllo
      expect "$s http: call add (auto)" '{"sum":5}' "$BIN" call "$URL" add a=2 b=3
      expect "$s http: call progress (legacy)" 'progress 3/3' "$BIN" call --era legacy "$URL" progress steps=3
      if [ "$s" = ts-v2 ]; then
        expect "$s http: call echo (modern)" 'echo: 世界' "$BIN" call --era modern "$URL" echo text=世界
      else
        # A legacy-only server refuses a pinned modern client: the error must say so.
        expect_fail "$s http: call echo (modern) is refused" 'Unsupported protocol version: 2026-07-28' \
          "$BIN" call --era modern "$URL" echo text=x
      fi
      close_loop "$s" "$URL"
    else
      fail "$s http: server did not start"
    fi
    # The same server spawned over stdio by the client (Config.Command).
    for era in auto legacy; do
      expect "$s stdio: call echo ($era)" 'echo: héllo' \
        "$BIN" call --era "$era" --command "node $T/servers/$s.mjs stdio" echo text=héllo
    done
  done
  # Legacy Listen against a sessionful server of another project (sdk-1.mjs is stateless):
  # the SDK 1.32.2 in its sessionful mode, the session's GET stream, resources/subscribe.
  cp fixtures/sdk1_sessionful.mjs "$T/servers/"
  if start_node sdk-1-sessionful sdk1_sessionful.mjs; then
    expect "sdk-1 sessionful http: legacy Listen" '--- PASS: TestInteropSessionfulListen' \
      env FASTMCP_SDK1_SESSIONFUL_URL="$URL" "$T/bin/client.test" -test.run '^TestInteropSessionfulListen$' -test.v
    close_loop sdk-1-sessionful "$URL"
  else
    fail "sdk-1 sessionful http: server did not start"
  fi

  # Connect/Close 1,000 times against the sessionful Go servers that hold the GET stream open.
  # start_go NAME PORT CMD...: starts CMD (which listens on 127.0.0.1:PORT) and waits for the port.
  start_go() {
    local name=$1 port=$2 pid
    shift 2
    "$@" >"$T/logs/$name.stdout" 2>"$T/logs/$name.stderr" &
    pid=$!
    PIDS+=("$pid")
    for _ in $(seq 100); do # a bounded wait for the listener
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    echo "client-lane: $name is not listening on $port; stderr:" >&2
    sed 's/^/  /' "$T/logs/$name.stderr" >&2
    return 1
  }
  free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
  if (cd bench/peers &&
    timeout --kill-after=10 300 "$GO" build -o "$T/bin/gosdk-everything" github.com/modelcontextprotocol/go-sdk/conformance/everything-server &&
    timeout --kill-after=10 300 "$GO" build -o "$T/bin/mcpgo-conformance" github.com/mark3labs/mcp-go/examples/conformance); then
    gp=$(free_port)
    mp=$(free_port)
    if start_go gosdk-sessionful "$gp" "$T/bin/gosdk-everything" -http "127.0.0.1:$gp" -stateless=false &&
      CONFORMANCE_ADDR="127.0.0.1:$mp" start_go mcpgo-conformance "$mp" "$T/bin/mcpgo-conformance"; then
      out=$(timeout --kill-after=5 300 env FASTMCP_CLOSE_LOOP_URLS="gosdk=http://127.0.0.1:$gp/ mcpgo=http://127.0.0.1:$mp/mcp" \
        "$T/bin/client.test" -test.run '^TestInteropCloseLoop$' -test.v -test.timeout 280s 2>&1) || true
      for s in gosdk mcpgo; do
        if [[ "$out" == *"--- PASS: TestInteropCloseLoop/$s "* ]]; then ok "$s sessionful http: Connect/Close 1,000 times"; else fail "$s sessionful http: Connect/Close 1,000 times: $out"; fi
      done
    else
      fail "go peers' conformance servers did not start"
    fi
  else
    fail "go peers' conformance servers did not build"
  fi
fi

# ---- 2. the suite's client mode --------------------------------------------------------------

# The scenario lists above must be the suite's own: the client scenarios of each
# requirements file of the pinned suite.
REQ="$T/node_modules/@modelcontextprotocol/conformance/requirements"
for rev in 2026-07-28 2025-11-25; do
  want=$(awk '/^client:/{on=1; next} /^[^ ]/{on=0} on && /^  - /{print $2}' "$REQ/$rev.yaml" | sort | tr '\n' ' ')
  if [ "$rev" = 2026-07-28 ]; then have=$(printf '%s\n' "${MODERN[@]}" | sort | tr '\n' ' '); else have=$(printf '%s\n' "${LEGACY[@]}" | sort | tr '\n' ' '); fi
  if [ "$want" = "$have" ]; then
    ok "client scenarios of $rev match $REQ/$rev.yaml"
  else
    fail "client scenarios of $rev: the suite scores '$want', the lane runs '$have'"
  fi
done

# scenario REV NAME [--force]: one `conformance client --scenario NAME --spec-version REV` run
# into .tools/results/client-REV/.
scenario() {
  local rev=$1 name=$2 dir="$T/results/client-$1" rc=0 bad
  mkdir -p "$dir"
  timeout --kill-after=10 90 conformance client --command "$BIN conformance-client" \
    --scenario "$name" --spec-version "$rev" ${3:+"$3"} -o "$dir" >"$T/logs/client-$rev-${name//\//_}.log" 2>&1 || rc=$?
  # shellcheck disable=SC2016 # JavaScript template literals, not shell expansions
  bad=$(node -e '
    const fs = require("fs"), path = require("path");
    const [dir, name] = process.argv.slice(1);
    // The suite writes DIR/NAME-TIMESTAMP/ (auth/x: DIR/auth/x-TIMESTAMP/).
    const parent = path.join(dir, path.dirname(name)), base = path.basename(name);
    const runs = (fs.existsSync(parent) ? fs.readdirSync(parent) : [])
      .filter((d) => d.startsWith(base + "-") && /^\d{4}-/.test(d.slice(base.length + 1))).sort();
    if (!runs.length) { console.log("no results"); process.exit(); }
    const checks = JSON.parse(fs.readFileSync(path.join(parent, runs.at(-1), "checks.json"), "utf8"));
    for (const c of checks) if (c.status === "FAILURE" || c.status === "WARNING")
      console.log(`${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
  ' "$dir" "$name")
  if [ "$rc" -eq 0 ] && [ -z "$bad" ] && ! grep -q '^SKIPPED' "$T/logs/client-$rev-${name//\//_}.log"; then
    ok "conformance client $rev $name"
  else
    fail "conformance client $rev $name (exit $rc; log .tools/logs/client-$rev-${name//\//_}.log)"
    if [ -n "$bad" ]; then printf '%s\n' "$bad" | sed 's/^/      /'; fi
  fi
}

if [ $# -gt 0 ]; then
  for name in "$@"; do
    rev=2025-11-25 force=""
    for m in "${MODERN[@]}"; do [ "$m" = "$name" ] && rev=2026-07-28; done
    for m in "${EXTENSIONS[@]}"; do [ "$m" = "$name" ] && force=--force; done
    scenario "$rev" "$name" ${force:+"$force"}
  done
else
  for name in "${MODERN[@]}"; do scenario 2026-07-28 "$name"; done
  for name in "${LEGACY[@]}"; do scenario 2025-11-25 "$name"; done
  for rev in 2026-07-28 2025-11-25; do
    for name in "${EXTENSIONS[@]}"; do scenario "$rev" "$name" --force; done
  done
fi
exit "$FAILED"
