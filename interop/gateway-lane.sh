#!/usr/bin/env bash
# The gateway's lane with real backends that are not ours (issue 23), a step of interop/run.sh
# beside its gateway_lane (which puts our own conformance fixtures behind the gateway):
#
#   1. The official suite through the gateway with one backend (transparent: names unchanged):
#      go-sdk v1.8.0's everything-server, sessionful (-stateless=false), initialize-era only.
#      First the suite against go-sdk directly, --requirements 2025-11-25 (30/30: what its
#      fixtures serve); then through `serve --backend gosdk=URL --legacy-sessions`,
#      --requirements 2026-07-28 and 2025-11-25: every scored scenario passes but the ones
#      listed in GOSDK_MISSING_*, each with its reason (missing_reason), which must fail (a
#      listed scenario that passes fails the step: take it off the list). Then the official
#      TypeScript v2 server (servers/ts-v2.mjs http, three tools, one resource, one prompt)
#      behind the gateway: its catalog has none of the suite's fixtures, so the lane requires
#      the scenarios listed in TS_V2_PASSES, the ones that pass, and says how many others fail.
#   2. Aggregation of three real backends at once: the SDK 1.32.2 server over stdio
#      (servers/sdk-1.mjs stdio), mcp-go's conformance example over HTTP and go-sdk's
#      everything-server over HTTP (`serve --backend sdk=stdio:… --backend mcpgo=URL
#      --backend gosdk=URL`). The official clients in every mode (the 2.4.0 client pin, auto
#      and legacy, and the SDK 1.32.2 client: clients/gateway.mjs; the Inspector CLI in its
#      three eras) list the namespaced tools and call one tool of each backend; go-sdk's
#      elicitation is answered by each client (by a 2026-07-28 one as an input_required
#      round). Then go-sdk is killed (SIGKILL) while a call of a pinned 2026-07-28 client waits
#      for its elicitation's answer: that caller gets -32603 'Backend "gosdk" is unavailable',
#      the other backends keep serving (clients/gateway-outage.mjs); go-sdk started again on
#      the same port serves again through the same gateway process. The stdio child is killed
#      too: the gateway starts it again. Last, the 2.4.0 client (pin) once more.
#
#   interop/gateway-lane.sh   (run.sh runs it; alone it installs the toolchain as run.sh does)
#
# Every step bounded with timeout, every process started here stopped on exit; a summary of
# the steps (ok/FAIL, seconds) closes the output. Results in .tools/results/gateway-lane/,
# logs in .tools/logs/gateway-lane/. Exit 1 when any step fails.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=interop/toolchain.sh
source "$ROOT/interop/toolchain.sh"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh" # free_port
T="$ROOT/.tools"
GO=${GO:-go}
NPM=${NPM:-npm}
L="$T/logs/gateway-lane"
R="$T/results/gateway-lane"

# What go-sdk's fixtures cannot give through the gateway, by requirement set (reasons:
# missing_reason).
GOSDK_MISSING_2026=(server-stateless input-required-result-basic-elicitation
  input-required-result-multiple-input-requests input-required-result-multi-round)
GOSDK_MISSING_2025=(tools-call-with-logging)
# The scored 2026-07-28 scenarios the TypeScript v2 server passes through the gateway.
TS_V2_PASSES=(tools-list resources-list prompts-list sep-2164-resource-not-found caching
  server-sse-multiple-streams dns-rebinding-protection input-required-result-missing-input-response
  input-required-result-unsupported-methods input-required-result-ignore-extra-params
  input-required-result-validate-input)

missing_reason() {
  case "$1" in
    server-stateless) echo "its sep-2575 check calls test_missing_capability without declaring sampling; the gateway's one session with go-sdk declares elicitation, sampling and roots for every caller, so the tool runs instead of answering -32021" ;;
    input-required-result-basic-elicitation) echo "go-sdk asks a legacy client with a real elicitation/create, which has no key: the gateway names it elicitation_1, the scenario wants go-sdk's own key user_name" ;;
    input-required-result-multiple-input-requests) echo "the scenario wants three input requests in one round; go-sdk sends them to a legacy client as separate requests and the gateway makes one round of each (gateway/doc.go: several in one round not built); go-sdk itself fails this tool at 2025-11-25 (-32601 after the first request)" ;;
    input-required-result-multi-round) echo "go-sdk's own bridge for legacy clients runs one elicitation round and returns the handler's second InputRequiredResult as a plain result (empty content), also when called directly at 2025-11-25" ;;
    tools-call-with-logging) echo "go-sdk sends log messages only to a session that sent logging/setLevel, and the gateway sends its backends none (a level would hold for every caller: gateway/doc.go, Log messages)" ;;
    *) echo "(no reason recorded)" ;;
  esac
}

mkdir -p "$T/bin" "$T/logs" "$T/clients" "$T/servers" "$T/results"
rm -rf "$L" "$R" && mkdir -p "$L" "$R"

# ---- bookkeeping -----------------------------------------------------------------------------

PIDS=()
SUMMARY=()
FAILED=0
LANE_START=$SECONDS

stop_pid() { # stop_pid PID: TERM, then KILL after 5 s
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# check NAME TIMEOUT CMD...: runs CMD (a command or an exported function) bounded by TIMEOUT
# seconds, output to the console; records ok or FAIL with its seconds.
check() {
  local name=$1 limit=$2 start=$SECONDS rc=0
  shift 2
  echo
  echo "=== $name"
  if [ "$(type -t "$1")" = function ]; then
    timeout --kill-after=10 "$limit" bash -c '"$@"' _ "$@" || rc=$?
  else
    timeout --kill-after=10 "$limit" "$@" || rc=$?
  fi
  if [ "$rc" -eq 0 ]; then
    echo "ok    $name"
    SUMMARY+=("$(printf '%-5s %-86s %4ss' ok "$name" $((SECONDS - start)))")
  else
    [ "$rc" -eq 124 ] && echo "gateway-lane: '$name' timed out after ${limit}s"
    echo "FAIL  $name (exit $rc)"
    SUMMARY+=("$(printf '%-5s %-86s %4ss' FAIL "$name (exit $rc)" $((SECONDS - start)))")
    FAILED=1
  fi
  return 0
}

record_fail() { # record_fail NAME: a step that could not run
  echo "FAIL  $1"
  SUMMARY+=("$(printf '%-5s %-86s %4ss' FAIL "$1" 0)")
  FAILED=1
}

# ---- toolchain and binaries --------------------------------------------------------------------

install_tools
export PATH="$T/node_modules/node/bin:$T/node_modules/.bin:$PATH"
cp interop/clients/*.mjs "$T/clients/" # they import the npm packages, so they run from .tools
cp interop/servers/*.mjs "$T/servers/"
BIN="$T/bin/fastmcp-bench"
timeout --kill-after=10 300 "$GO" build -o "$BIN" ./cmd/fastmcp-bench
(cd bench/peers &&
  timeout --kill-after=10 300 "$GO" build -o "$T/bin/gosdk-everything" github.com/modelcontextprotocol/go-sdk/conformance/everything-server &&
  timeout --kill-after=10 300 "$GO" build -o "$T/bin/mcpgo-conformance" github.com/mark3labs/mcp-go/examples/conformance)

# ---- processes ----------------------------------------------------------------------------------

LAST_PID=""
URL=""

# start_port NAME PORT CMD...: starts CMD (which listens on 127.0.0.1:PORT), waits for the
# port; sets LAST_PID.
start_port() {
  local name=$1 port=$2
  shift 2
  "$@" >>"$L/$name.stdout" 2>>"$L/$name.stderr" &
  LAST_PID=$!
  PIDS+=("$LAST_PID")
  for _ in $(seq 200); do # a bounded wait for the listener (20 s)
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    kill -0 "$LAST_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "gateway-lane: $name is not listening on $port; stderr:" >&2
  sed 's/^/  /' "$L/$name.stderr" >&2
  return 1
}

# start_url NAME CMD...: starts CMD, which prints {"url":"http://…"} once listening, and
# sets URL from it and LAST_PID.
start_url() {
  local name=$1 out="$L/$1.stdout"
  shift
  "$@" >"$out" 2>"$L/$name.stderr" &
  LAST_PID=$!
  PIDS+=("$LAST_PID")
  URL=""
  for _ in $(seq 300); do # a bounded wait for the URL line (30 s)
    URL=$(sed -n 's/^{"url":"\(http:[^"]*\)"}$/\1/p' "$out" 2>/dev/null | head -n 1)
    [ -n "$URL" ] && { echo "gateway-lane: $name at $URL"; return 0; }
    kill -0 "$LAST_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "gateway-lane: $name printed no URL line; stderr:" >&2
  sed 's/^/  /' "$L/$name.stderr" >&2
  return 1
}

# ---- the suite ----------------------------------------------------------------------------------

# suite LABEL URL SET except|only SCENARIO...: one `conformance server --requirements SET`
# run into $R/LABEL-SET, scored by score.mjs. except: every scored scenario passes but the
# ones listed, which must fail (each printed with its reason); only: the listed ones pass
# (how many others fail is printed).
suite() {
  local label=$1 url=$2 set=$3 how=$4 dir="$R/$1-$3" log="$L/conformance-$1-$3.log" s failing rc=0
  shift 4
  conformance server --url "$url" --requirements "$set" -o "$dir" >"$log" 2>&1 || true
  node "$ROOT/interop/score.mjs" "$dir" "$label" "$set" >"$L/score-$label-$set.txt" || true
  failing=$(sed -n 's/^  \([a-z0-9-]*\): \(FAILURE\|did not run\).*/\1/p' "$L/score-$label-$set.txt" | sort -u)
  tail -n 1 "$L/score-$label-$set.txt"
  if [ "$how" = except ]; then
    for s in $failing; do
      if printf '%s\n' "$@" | grep -qx "$s"; then
        echo "  expected-missing: $s: $(missing_reason "$s")"
      else
        echo "  FAILING: $s:"
        grep "^  $s: " "$L/score-$label-$set.txt" | sed 's/^/    /'
        rc=1
      fi
    done
    for s in "$@"; do
      if ! grep -qx "$s" <<<"$failing"; then
        echo "  $s now passes: take it off the expected-missing list"
        rc=1
      fi
    done
  else
    for s in "$@"; do
      if grep -qx "$s" <<<"$failing"; then
        echo "  FAILING: $s:"
        grep "^  $s: " "$L/score-$label-$set.txt" | sed 's/^/    /'
        rc=1
      fi
    done
    echo "  required to pass: $#; the others fail for want of fixtures: $(grep -c . <<<"$failing" || true)"
  fi
  echo "  (checks of every scenario: ${dir#"$ROOT"/}; suite output: ${log#"$ROOT"/})"
  return "$rc"
}

# inspector ERA URL: the Inspector CLI in one era (default: none given, legacy; auto; modern)
# against the aggregating gateway: initialize negotiates the era's version, tools/list shows
# every backend's namespaced tools, tools/call reaches each backend.
inspector() {
  local era=$1 url=$2 want=2026-07-28 out t flags=(--format json)
  if [ "$era" = default ]; then want=2025-11-25; else flags+=(--protocol-era "$era"); fi
  out=$(mcp-inspector --cli --method initialize "${flags[@]}" "$url" --transport http)
  grep -q "\"protocolVersion\":\"$want\"" <<<"$out" || { echo "initialize did not negotiate $want: ${out:0:300}"; return 1; }
  out=$(mcp-inspector --cli --method tools/list "${flags[@]}" "$url" --transport http)
  for t in sdk__echo mcpgo__test_simple_text gosdk__test_simple_text; do
    grep -q "\"name\":\"$t\"" <<<"$out" || { echo "tools/list lacks $t: ${out:0:300}"; return 1; }
  done
  out=$(mcp-inspector --cli --method tools/call --tool-name sdk__echo --tool-arg 'text=héllo from the inspector' "${flags[@]}" "$url" --transport http)
  grep -q '"text":"echo: héllo from the inspector"' <<<"$out" || { echo "tools/call sdk__echo: ${out:0:300}"; return 1; }
  for t in mcpgo__test_simple_text gosdk__test_simple_text; do
    out=$(mcp-inspector --cli --method tools/call --tool-name "$t" "${flags[@]}" "$url" --transport http)
    grep -q '"text":"This is a simple text response for testing."' <<<"$out" || { echo "tools/call $t: ${out:0:300}"; return 1; }
  done
  echo "inspector ($era era, $want): initialize, tools/list and tools/call of sdk__echo, mcpgo__test_simple_text, gosdk__test_simple_text ok"
}

# back URL TOOL TEXT [ARGS_JSON]: TOOL answers TEXT through the gateway (polled, at most 60 s).
back() { node "$T/clients/gateway-outage.mjs" "$1" back "${@:2}"; }

export T L R ROOT
export -f suite missing_reason inspector back

SIMPLE='This is a simple text response for testing.'

# ---- 1. the suite through the gateway, one real backend ---------------------------------------

gp=$(free_port)
if start_port gosdk-suite "$gp" "$T/bin/gosdk-everything" -http "127.0.0.1:$gp" -stateless=false; then
  gosdk_pid=$LAST_PID
  check "go-sdk directly: --requirements 2025-11-25 (30 scored: what its fixtures serve)" 300 \
    suite gosdk-direct "http://127.0.0.1:$gp/" 2025-11-25 except
  if start_url gateway-gosdk "$BIN" serve --backend "gosdk=http://127.0.0.1:$gp/" --legacy-sessions --addr 127.0.0.1:0; then
    gw_pid=$LAST_PID
    check "gateway -> go-sdk: --requirements 2026-07-28 (37 scored, ${#GOSDK_MISSING_2026[@]} expected-missing)" 300 \
      suite gateway-gosdk "$URL" 2026-07-28 except "${GOSDK_MISSING_2026[@]}"
    check "gateway -> go-sdk: --requirements 2025-11-25 (30 scored, ${#GOSDK_MISSING_2025[@]} expected-missing)" 300 \
      suite gateway-gosdk "$URL" 2025-11-25 except "${GOSDK_MISSING_2025[@]}"
    stop_pid "$gw_pid"
  else
    record_fail "gateway -> go-sdk: the gateway did not start"
  fi
  stop_pid "$gosdk_pid"
else
  record_fail "go-sdk everything-server did not start"
fi

if start_url ts-v2-suite node "$T/servers/ts-v2.mjs" http; then
  ts_pid=$LAST_PID
  if start_url gateway-ts-v2 "$BIN" serve --backend "ts=$URL" --addr 127.0.0.1:0; then
    gw_pid=$LAST_PID
    check "gateway -> TypeScript v2: --requirements 2026-07-28 (the ${#TS_V2_PASSES[@]} it passes)" 300 \
      suite gateway-ts-v2 "$URL" 2026-07-28 only "${TS_V2_PASSES[@]}"
    stop_pid "$gw_pid"
  else
    record_fail "gateway -> TypeScript v2: the gateway did not start"
  fi
  stop_pid "$ts_pid"
else
  record_fail "TypeScript v2 server did not start"
fi

# ---- 2. three real backends at once --------------------------------------------------------------

aggregate() {
  local gp mp gw gw_pid gosdk_pid child after m
  gp=$(free_port)
  mp=$(free_port)
  start_port gosdk "$gp" "$T/bin/gosdk-everything" -http "127.0.0.1:$gp" -stateless=false || return 1
  gosdk_pid=$LAST_PID
  CONFORMANCE_ADDR="127.0.0.1:$mp" start_port mcpgo "$mp" "$T/bin/mcpgo-conformance" || return 1
  start_url gateway-aggregate "$BIN" serve --addr 127.0.0.1:0 \
    --backend "sdk=stdio:node $T/servers/sdk-1.mjs stdio" \
    --backend "mcpgo=http://127.0.0.1:$mp/mcp" \
    --backend "gosdk=http://127.0.0.1:$gp/" || return 1
  gw=$URL gw_pid=$LAST_PID

  check "aggregate: the three backends answer (sdk stdio, mcpgo and gosdk http)" 180 bash -c '
    back "$1" sdk__echo "echo: up" "{\"text\":\"up\"}" && back "$1" mcpgo__test_simple_text "$2" && back "$1" gosdk__test_simple_text "$2"' _ "$gw" "$SIMPLE"
  for m in pin auto legacy; do
    check "aggregate: client 2.4.0 --mode $m (clients/gateway.mjs)" 120 node "$T/clients/gateway.mjs" "$gw" "$m"
  done
  check "aggregate: SDK 1.32.2 client (clients/gateway.mjs sdk)" 120 node "$T/clients/gateway.mjs" "$gw" sdk
  for m in default auto modern; do
    check "aggregate: Inspector CLI, $m era" 180 inspector "$m" "$gw"
  done

  check "outage: go-sdk killed mid-call (waiting for its elicitation): -32603 to its caller, the others serve" 120 \
    node "$T/clients/gateway-outage.mjs" "$gw" kill "$gosdk_pid" "http://127.0.0.1:$gp/"
  stop_pid "$gosdk_pid" # reaped (it is dead already, unless the step failed before killing it)
  if start_port gosdk "$gp" "$T/bin/gosdk-everything" -http "127.0.0.1:$gp" -stateless=false; then
    check "outage: go-sdk started again on port $gp serves again, no gateway restart" 120 back "$gw" gosdk__test_simple_text "$SIMPLE"
  else
    record_fail "outage: go-sdk did not start again"
  fi

  child=$(pgrep -P "$gw_pid" -x node || true)
  if [ -n "$child" ]; then
    kill -KILL "$child"
    check "outage: the stdio child (pid $child) killed: the gateway starts it again" 120 back "$gw" sdk__echo "echo: again" '{"text":"again"}'
    after=$(pgrep -P "$gw_pid" -x node || true)
    [ -n "$after" ] && [ "$after" != "$child" ] && echo "gateway-lane: the stdio child is now pid $after"
  else
    record_fail "outage: the gateway's stdio child was not found"
  fi
  kill -0 "$gw_pid" || { record_fail "outage: the gateway process is gone"; return 1; }
  check "aggregate: client 2.4.0 --mode pin after the outages, same gateway process (pid $gw_pid)" 120 \
    node "$T/clients/gateway.mjs" "$gw" pin
}
aggregate || record_fail "aggregate: a process did not start"

# ---- summary --------------------------------------------------------------------------------------

echo
echo "=== gateway lane summary ($((SECONDS - LANE_START))s; results in ${R#"$ROOT"/}, logs in ${L#"$ROOT"/})"
printf '%s\n' "${SUMMARY[@]}"
if [ "$FAILED" -ne 0 ]; then
  for f in "$L"/*.stderr; do
    [ -s "$f" ] || continue
    echo "--- last lines of ${f#"$ROOT"/}"
    tail -n 10 "$f" | cut -c1-300
  done
  echo "gateway-lane: FAILED"
fi
exit "$FAILED"
