#!/usr/bin/env bash
# The interop lane of `make test`: the official MCP conformance suite, the official TypeScript
# clients (the SDK 1.32.2 client and the 2.4.0 client) and the Inspector CLI against
# fastmcp-bench servers, in both protocol eras: 2026-07-28 and the initialize-era 2025-11-25 and
# 2025-06-18.
#
#   interop/run.sh              (from anywhere; `make interop` runs it)
#   interop/run.sh --self-test  (only the test of the npm detection, interop/toolchain_test.sh)
#
# Everything comes from npm through interop/package-lock.json (Node 22 included) and is
# installed into .tools/ (gitignored) only when the lock changes. That needs npm and node once;
# when they are missing and we run as root with apt-get, Debian's npm is installed first
# (interop/toolchain.sh), else the lane stops with a one-line message. Servers are started on
# 127.0.0.1:0 and always stopped on exit. Every step is bounded with `timeout`. The lane fails
# (exit 1) when any step fails; lanes whose transport is not built yet are skipped with a
# notice. Results of the conformance runs are kept in .tools/results/, with the suite's own
# totals, unscored scenarios included, in .tools/results/<run>/suite-summary.txt. The last
# lines printed are the scores of each requirement set (2026-07-28: 37 scored scenarios,
# its 10 tasks-* scenarios, 2025-11-25: 30) on each HTTP stack, then the 2025-11-25 score of
# each stack with initialize-era sessions (serve --legacy-sessions), then the 2026-07-28 and
# 2025-11-25 scores through the gateway (serve --backend).
#
# Environment: GO (default go), NPM (default npm), INTEROP_KEEP_RESULTS=1 keeps older results.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
case "${1:-}" in
  "") ;;
  --self-test) exec timeout --kill-after=10 60 "$ROOT/interop/toolchain_test.sh" ;;
  *) echo "usage: interop/run.sh [--self-test]" >&2; exit 2 ;;
esac
# shellcheck source=interop/toolchain.sh
source "$ROOT/interop/toolchain.sh"
T="$ROOT/.tools"
GO=${GO:-go}
NPM=${NPM:-npm}
SPEC=2026-07-28
PENDING=(json-schema-2020-12 http-header-validation http-custom-header-server-validation)
REQUIREMENTS=(2026-07-28 tasks 2025-11-25)   # the sets scored, one closing line each (tasks: the
                                            # 10 tasks-* scenarios of the 2026-07-28 run)
LEGACY_SPECS=(2025-11-25 2025-06-18)   # the --spec-version runs that must have no FAILURE

mkdir -p "$T/bin" "$T/logs" "$T/clients" "$T/results"
if [ "${INTEROP_KEEP_RESULTS:-0}" != 1 ]; then
  rm -rf "$T/results" "$T/logs" && mkdir -p "$T/results" "$T/logs"
fi
rm -f "$T"/logs/score-*.txt # this run's scores only, even when older results are kept

# ---- bookkeeping -----------------------------------------------------------------------------

PIDS=()
SUMMARY=()
STACKS=() # the HTTP stacks whose conformance scores close the output
FAILED=0
LANE_START=$SECONDS

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

record() { # record STATUS NAME SECONDS
  SUMMARY+=("$(printf '%-5s %-62s %4ss' "$1" "$2" "$3")")
  if [ "$1" = FAIL ]; then FAILED=1; fi
}

# step NAME TIMEOUT CMD...: runs CMD bounded by TIMEOUT seconds, output to the console.
step() {
  local name=$1 limit=$2 start=$SECONDS rc=0
  shift 2
  echo
  echo "=== $name"
  if [ "$(type -t "$1")" = function ]; then
    timeout --kill-after=10 "$limit" bash -c '"$@"' _ "$@" || rc=$? # exported with export -f
  else
    timeout --kill-after=10 "$limit" "$@" || rc=$?
  fi
  if [ "$rc" -eq 0 ]; then
    record ok "$name" $((SECONDS - start))
  else
    [ "$rc" -eq 124 ] && echo "interop: '$name' timed out after ${limit}s"
    record FAIL "$name (exit $rc)" $((SECONDS - start))
  fi
  return 0
}

skip() { # skip NAME REASON
  echo
  echo "=== $1"
  echo "SKIP: $2"
  record skip "$1 ($2)" 0
}

# ---- toolchain (install_tools: interop/toolchain.sh) ------------------------------------------


step "self-test: npm and node detection (interop/toolchain_test.sh)" 60 interop/toolchain_test.sh
echo
install_tools
export PATH="$T/node_modules/node/bin:$T/node_modules/.bin:$PATH"
case "$(node --version)" in
  v22.*) ;;
  *) echo "interop: expected Node 22 from .tools, got $(node --version)" >&2; exit 1 ;;
esac
echo "interop: node $(node --version), conformance $(conformance --version)"

# The client scripts import the npm packages, so they run from inside .tools.
cp interop/clients/*.mjs "$T/clients/"

BIN="$T/bin/fastmcp-bench"
echo "interop: go build ./cmd/fastmcp-bench"
timeout --kill-after=10 300 "$GO" build -o "$BIN" ./cmd/fastmcp-bench

# ---- servers ---------------------------------------------------------------------------------

SERVER_URL=""

# start_server NAME ARGS...: starts `fastmcp-bench serve ARGS` and sets SERVER_URL from its JSON
# line. Returns 2 when serve exits 2 at once (that stack is not built yet), 1 on other failures.
start_server() {
  local name=$1 out err pid line="" rc
  shift
  out="$T/logs/$name.stdout" err="$T/logs/$name.stderr"
  "$BIN" serve "$@" >"$out" 2>"$err" &
  pid=$!
  PIDS+=("$pid")
  for _ in $(seq 100); do
    line=$(head -n 1 "$out" 2>/dev/null || true)
    SERVER_URL=$(printf '%s' "$line" | sed -n 's/^{"url":"\(http:[^"]*\)"}$/\1/p')
    [ -n "$SERVER_URL" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      rc=0
      wait "$pid" || rc=$?
      if [ "$rc" -eq 2 ]; then
        sed 's/^/  /' "$err"
        return 2
      fi
      echo "interop: server '$name' exited with $rc before listening:" >&2
      sed 's/^/  /' "$err" >&2
      return 1
    fi
    sleep 0.1
  done
  if [ -z "$SERVER_URL" ]; then
    echo "interop: server '$name' printed no URL line within 10s (got: '$line')" >&2
    return 1
  fi
  echo "interop: server '$name' at $SERVER_URL"
}

# results_of STACK SET: the results folder (under .tools/results) of one conformance run: the
# 2026-07-28 gate keeps the stack's own name.
results_of() {
  if [ "$2" = "$SPEC" ] || [ "$2" = tasks ]; then echo "$1"; else echo "$1-$2"; fi
}

# conformance_gate STACK URL SET: one official run, `--requirements SET` (2026-07-28 or
# 2025-11-25) or, for SET spec-VERSION, `--spec-version VERSION` (the active suite). Its full
# output goes to .tools/logs and its summary (totals of every scenario, unscored ones included)
# to the results folder; the console gets our score of the set (score.mjs), never the raw
# totals.
conformance_gate() {
  local stack=$1 url=$2 set=$3 rc=0 run log sum
  run=$(results_of "$stack" "$set")
  log="$T/logs/conformance-$run.log" sum="$T/results/$run/suite-summary.txt"
  case "$set" in
    spec-*) conformance server --url "$url" --spec-version "${set#spec-}" -o "$T/results/$run" >"$log" 2>&1 || rc=$? ;;
    *) conformance server --url "$url" --requirements "$set" -o "$T/results/$run" >"$log" 2>&1 || rc=$? ;;
  esac
  mkdir -p "$T/results/$run"
  sed -n '/=== SUMMARY ===/,$p' "$log" >"$sum"
  grep -a '^Not scored' "$sum" || true
  echo "suite totals, unscored scenarios included: ${sum#"$ROOT"/}"
  if [ "$rc" -ne 0 ]; then
    echo "conformance exited $rc (full output: ${log#"$ROOT"/})"
    grep -a '^✗' "$sum" | sed 's/: [0-9]* passed, [0-9]* failed$//; s/^/  failing scenario: /' || true
  fi
  score "$stack" "$set" || rc=1
  return "$rc"
}

# score_log STACK SET: the file a score is kept in (the tasks set reads the 2026-07-28 run's
# folder, but keeps a score of its own).
score_log() {
  local run
  run=$(results_of "$1" "$2")
  if [ "$2" = tasks ]; then run="$run-tasks"; fi
  echo "$T/logs/score-$run.txt"
}

# score STACK SET: scores the results folder of STACK's SET run (an empty or missing folder
# scores 0) into score_log's file, whose last line the summary repeats, and prints it.
score() {
  local rc=0 run
  run=$(results_of "$1" "$2")
  node "$ROOT/interop/score.mjs" "$T/results/$run" "$1" "$2" >"$(score_log "$1" "$2")" || rc=$?
  cat "$(score_log "$1" "$2")"
  return "$rc"
}

# conformance_pending LABEL URL SCENARIO: one pending scenario, which must pass too.
conformance_pending() {
  local rc=0 log="$T/logs/conformance-$1-$3.log"
  conformance server --url "$2" --scenario "$3" --spec-version "$SPEC" -o "$T/results/$1-pending" >"$log" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ]; then
    grep -a 'Passed:' "$log" || true
  else
    cat "$log"
  fi
  return "$rc"
}

# conformance_lane STACK URL: the 2026-07-28 gate plus its pending scenarios, the 2025-11-25
# requirement set, and the initialize-era --spec-version runs.
conformance_lane() {
  local stack=$1 url=$2 s
  step "$stack: conformance --requirements $SPEC (37 scored)" 300 conformance_gate "$stack" "$url" "$SPEC"
  step "$stack: conformance tasks-* scenarios of that run (10, no FAILURE)" 60 score "$stack" tasks
  for s in "${PENDING[@]}"; do
    step "$stack: conformance pending scenario $s" 120 conformance_pending "$stack" "$url" "$s"
  done
  step "$stack: conformance --requirements 2025-11-25 (30 scored)" 300 conformance_gate "$stack" "$url" 2025-11-25
  for s in "${LEGACY_SPECS[@]}"; do
    step "$stack: conformance --spec-version $s (no FAILURE)" 300 conformance_gate "$stack" "$url" "spec-$s"
  done
}

# inspector ERA TARGET...: the Inspector CLI in one protocol era (default: no --protocol-era,
# which is legacy; auto; modern) against TARGET (a URL, or a command after --). initialize
# must negotiate the era's version; then tools/list, and tools/call of echo (non-ASCII) and
# region_echo (an x-mcp-header argument).
inspector() {
  local era=$1 want=2026-07-28 out
  shift
  # --format json right after the variadic --tool-arg, so the target is not read as a pair.
  local flags=(--format json)
  if [ "$era" = default ]; then want=2025-11-25; else flags+=(--protocol-era "$era"); fi
  out=$(mcp-inspector --cli --method initialize "${flags[@]}" "$@")
  grep -q "\"protocolVersion\":\"$want\"" <<<"$out" || { echo "initialize did not negotiate $want: ${out:0:300}"; return 1; }
  out=$(mcp-inspector --cli --method tools/list "${flags[@]}" "$@")
  grep -q '"name":"echo"' <<<"$out" || { echo "tools/list lacks echo: ${out:0:300}"; return 1; }
  out=$(mcp-inspector --cli --method tools/call --tool-name echo --tool-arg 'text=héllo from the inspector' "${flags[@]}" "$@")
  grep -q '"text":"héllo from the inspector"' <<<"$out" || { echo "tools/call echo: ${out:0:300}"; return 1; }
  out=$(mcp-inspector --cli --method tools/call --tool-name region_echo \
    --tool-args-json '{"region":"eu-west1","text":"hi"}' "${flags[@]}" "$@")
  grep -q '"text":"eu-west1: hi"' <<<"$out" || { echo "tools/call region_echo: ${out:0:300}"; return 1; }
  echo "inspector ($era era, $want): initialize, tools/list and tools/call (echo, region_echo) ok"
}

inspector_http() { inspector "$2" "$1" --transport http; }

inspector_stdio() { inspector "$1" "$BIN" -- serve --stdio --fixtures demo; }

# clients_http STACK URL: every official client against one HTTP stack, each in every mode.
clients_http() {
  local stack=$1 url=$2 m
  for m in pin auto legacy; do
    step "$stack: client 2.4.0 --mode $m (clients/http.mjs)" 120 node "$T/clients/http.mjs" "$url" "$m"
  done
  step "$stack: SDK 1.32.2 client (clients/sdk.mjs http)" 120 node "$T/clients/sdk.mjs" http "$url"
  for m in default auto modern; do
    step "$stack: Inspector CLI, $m era" 120 inspector_http "$url" "$m"
  done
}

export BIN T ROOT SPEC
export -f inspector inspector_http inspector_stdio conformance_gate conformance_pending score score_log results_of

# ---- lanes -----------------------------------------------------------------------------------

# 1. The native fasthttp listener: conformance, the official client, the Inspector.
STACKS+=(fasthttp)
rc=0
start_server fasthttp --fixtures conformance,demo --addr 127.0.0.1:0 || rc=$?
if [ "$rc" -eq 0 ]; then
  URL=$SERVER_URL
  conformance_lane fasthttp "$URL"
  clients_http fasthttp "$URL"
else
  record FAIL "fasthttp: server did not start" 0
fi

# 2 and 3. net/http with the streamable adapter, and the streamable mount in a plain
# fasthttp.Server (each skipped while serve does not build that stack).
other_stack() {
  local stack=$1 rc=0
  start_server "$stack" --stack "$stack" --fixtures conformance,demo --addr 127.0.0.1:0 || rc=$?
  case "$rc" in
    0)
      STACKS+=("$stack")
      conformance_lane "$stack" "$SERVER_URL"
      clients_http "$stack" "$SERVER_URL"
      ;;
    2) skip "$stack: conformance and official clients" "serve --stack $stack is not available yet" ;;
    *)
      STACKS+=("$stack")
      record FAIL "$stack: server did not start" 0
      ;;
  esac
}
other_stack nethttp
other_stack fasthttp-mount

# 2b. Initialize-era sessions (serve --legacy-sessions, issue 22) on each HTTP stack: the
# 2025-11-25 requirement set again, where every check must be a SUCCESS (no WARNING: the
# sessionless servers above only warn on server-sse-multiple-streams).
no_warnings() {
  local log
  log=$(score_log "$1" "$2")
  grep -q ' 0 FAILURE, 0 WARNING$' "$log" || { grep -a 'WARNING\|FAILURE' "$log"; return 1; }
}
export -f no_warnings
sessions_lane() {
  local stack=$1 rc=0 args=(--fixtures conformance,demo --addr 127.0.0.1:0 --legacy-sessions)
  [ "$stack" = fasthttp ] || args+=(--stack "$stack")
  start_server "$stack-sessions" "${args[@]}" || rc=$?
  if [ "$rc" -ne 0 ]; then
    record FAIL "$stack-sessions: server did not start" 0
    return
  fi
  step "$stack-sessions: conformance --requirements 2025-11-25 (30 scored, --legacy-sessions)" 300 conformance_gate "$stack-sessions" "$SERVER_URL" 2025-11-25
  step "$stack-sessions: every check of that run a SUCCESS (server-sse-multiple-streams included)" 10 no_warnings "$stack-sessions" 2025-11-25
}
for stack in fasthttp nethttp fasthttp-mount; do sessions_lane "$stack"; done

# 2c. The gateway (serve --backend, issue 23), transparent (one backend, names unchanged), in
# front of a conformance backend, with legacy sessions: the two requirement sets through it,
# every check of both a SUCCESS, and the 10 tasks-* scenarios of the 2026-07-28 run passed
# through to the backend's tasks (gateway/tasks.go).
gateway_lane() {
  local rc=0
  start_server gateway-backend --fixtures conformance --addr 127.0.0.1:0 || rc=$?
  if [ "$rc" -eq 0 ]; then
    start_server gateway --backend "conformance=$SERVER_URL" --legacy-sessions --addr 127.0.0.1:0 || rc=$?
  fi
  if [ "$rc" -ne 0 ]; then
    record FAIL "gateway: a server did not start" 0
    return
  fi
  step "gateway: conformance --requirements $SPEC (37 scored, through serve --backend)" 300 conformance_gate gateway "$SERVER_URL" "$SPEC"
  step "gateway: conformance tasks-* scenarios of that run (10, no FAILURE, the backend's tasks passed through)" 60 score gateway tasks
  step "gateway: conformance --requirements 2025-11-25 (30 scored, through serve --backend)" 300 conformance_gate gateway "$SERVER_URL" 2025-11-25
  step "gateway: every check of the $SPEC run a SUCCESS" 10 no_warnings gateway "$SPEC"
  step "gateway: every check of the 2025-11-25 run a SUCCESS (server-sse-multiple-streams included)" 10 no_warnings gateway 2025-11-25
}
gateway_lane
step "gateway: real backends (go-sdk, TypeScript v2, three at once; interop/gateway-lane.sh)" 1200 interop/gateway-lane.sh

# 4. stdio (skipped until serve --stdio exists): the official client and the Inspector spawn it.
rc=0
timeout 10 "$BIN" serve --stdio --fixtures demo </dev/null >/dev/null 2>"$T/logs/stdio-probe.stderr" || rc=$?
if [ "$rc" -eq 2 ]; then
  sed 's/^/  /' "$T/logs/stdio-probe.stderr"
  skip "stdio: official client and Inspector" "serve --stdio is not available yet"
else
  for m in pin auto legacy; do
    step "stdio: client 2.4.0 --mode $m (clients/stdio.mjs)" 120 \
      node "$T/clients/stdio.mjs" "$m" "$BIN" serve --stdio --fixtures conformance,demo
  done
  step "stdio: SDK 1.32.2 client (clients/sdk.mjs stdio)" 120 \
    node "$T/clients/sdk.mjs" stdio "$BIN" serve --stdio --fixtures conformance,demo
  for m in default auto modern; do
    step "stdio: Inspector CLI, $m era" 120 inspector_stdio "$m"
  done
fi

# ---- the Go client ------------------------------------------------------------------------------

# The client package (fastmcp-bench call and conformance-client) against the official TypeScript
# servers and the suite's client mode; its own output lists each check.
step "Go client: official servers and the suite's client mode (interop/client-lane.sh)" 900 interop/client-lane.sh

# ---- OAuth clients ------------------------------------------------------------------------------

# The official TypeScript client's OAuth flow (401, discovery, authorization code with PKCE and
# the resource indicator, 403 step-up) against the oauth package's resource server; the go-sdk
# half runs in `make unit`. A skip here would hide a missing toolchain, so it fails the step.
oauth_ts_client() {
  local out rc=0
  out=$(cd oauth/clientinterop && FASTMCP_TS_CLIENT_DIR="$T" "$GO" test -count=1 -v -run 'TypeScript' ./... 2>&1) || rc=$?
  echo "$out" | grep -E '^(=== RUN|--- |ok|FAIL|PASS)' || true
  if [ "$rc" -ne 0 ]; then echo "$out" | tail -n 40; return "$rc"; fi
  if echo "$out" | grep -q -- '--- SKIP'; then echo "interop: the TypeScript OAuth test skipped"; return 1; fi
}
export -f oauth_ts_client
export T GO
step "OAuth: official TypeScript client 2.4.0 flow (oauth/clientinterop)" 300 oauth_ts_client

# ---- summary ---------------------------------------------------------------------------------

echo
echo "=== interop summary ($((SECONDS - LANE_START))s; results in .tools/results, server logs in .tools/logs)"
printf '%s\n' "${SUMMARY[@]}"
count() { printf '%s\n' "${SUMMARY[@]}" | grep -c "^$1 " || true; }
if [ "$FAILED" -ne 0 ]; then
  for f in "$T"/logs/*.stderr; do
    [ -s "$f" ] || continue
    echo "--- last lines of $(basename "$f")"
    tail -n 20 "$f" | cut -c1-300
  done
  echo "interop: FAILED ($(count FAIL) of ${#SUMMARY[@]} steps failed, $(count skip) skipped)"
else
  echo "interop: all passed ($(count ok) steps ok, $(count skip) skipped)"
fi
# Last, the score of each requirement set on each HTTP stack: these are the closing
# 'N passed, N failed' lines (a run that never happened scores 0).
for stack in "${STACKS[@]}"; do
  for set in "${REQUIREMENTS[@]}"; do
    [ -f "$(score_log "$stack" "$set")" ] || score "$stack" "$set" >/dev/null || true
    tail -n 1 "$(score_log "$stack" "$set")"
  done
done
for stack in fasthttp nethttp fasthttp-mount; do
  [ -f "$(score_log "$stack-sessions" 2025-11-25)" ] || score "$stack-sessions" 2025-11-25 >/dev/null || true
  tail -n 1 "$(score_log "$stack-sessions" 2025-11-25)"
done
for set in "$SPEC" 2025-11-25; do
  [ -f "$(score_log gateway "$set")" ] || score gateway "$set" >/dev/null || true
  tail -n 1 "$(score_log gateway "$set")"
done
[ "$FAILED" -eq 0 ] # the exit status
