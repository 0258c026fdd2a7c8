#!/usr/bin/env bash
# cpu-groups.sh [SECONDS]: where each microsecond of a tools/call goes, fastmcp beside bare
# fasthttp answering the same bytes, function group by group, per request (issue 24).
#
# Each server in turn runs alone on CPU 0 (taskset -a) with net/http/pprof on a side listener,
# wrk drives it from CPU 1 (one thread, 32 keep-alive connections, the 2026-07-28 echo call of
# compare's wrk mode), and a CPU profile of SECONDS (default 5) is taken in the middle of the
# load. The requests of the profiled window are the server's rate times its length. Groups
# are pprof -focus totals (a sample counts in every group whose function is on its stack, so
# the patterns are chosen not to overlap); "everything else" is the rest of the samples.
# Needs go, wrk and taskset; prints a Markdown table (and the machine's load before and after).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECS=${1:-5}
for tool in wrk taskset; do
	command -v "$tool" >/dev/null || { echo "cpu-groups: $tool not found (Debian: apt-get install -y $tool; taskset is in util-linux)" >&2; exit 1; }
done
TMP=$(mktemp -d /tmp/fastmcp-cpu-groups.XXXXXX)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

go build -o "$TMP/fastmcp-bench" "$ROOT/cmd/fastmcp-bench"
(cd "$ROOT/bench/peers" && go build -o "$TMP/bare" ./bare)
cat >"$TMP/echo.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "echo"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
EOF

# profile NAME CMD...: starts CMD on CPU 0 (it prints {"url":…,"pprof":…} when ready), loads
# it, writes $TMP/NAME.prof and prints the requests of the profiled window.
profile() {
	local name=$1 line url pprof rate
	shift
	taskset -c 0 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	PIDS+=($!)
	for _ in $(seq 100); do
		line=$(head -n 1 "$TMP/$name.out")
		[ -n "$line" ] && break
		sleep 0.1
	done
	url=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' <<<"$line")
	pprof=$(sed -n 's/.*"pprof":"\([^"]*\)".*/\1/p' <<<"$line")
	[ -n "$url" ] && [ -n "$pprof" ] || { echo "cpu-groups: $name did not start: $line $(cat "$TMP/$name.err")" >&2; exit 1; }
	pprof=${pprof%/}
	[[ "$pprof" == http* ]] || pprof="http://$pprof"
	[[ "$pprof" == */debug/pprof ]] || pprof="$pprof/debug/pprof"
	taskset -c 1 wrk -t1 -c32 -d"$((SECS + 3))s" -s "$TMP/echo.lua" "$url" >"$TMP/$name.wrk" &
	local wrk=$!
	sleep 1.5
	curl -fsS "$pprof/profile?seconds=$SECS" -o "$TMP/$name.prof"
	wait "$wrk"
	kill "${PIDS[-1]}"
	rate=$(awk '/^Requests\/sec/ {print $2}' "$TMP/$name.wrk")
	awk -v r="$rate" -v s="$SECS" 'BEGIN {printf "%d\n", r * s}'
}

# seconds BIN PROF [FOCUS [IGNORE]]: the samples' total in seconds, filtered.
seconds() {
	local args=(-top -nodecount 100000 -nodefraction 0)
	[ -z "${3:-}" ] || args+=(-focus "$3")
	[ -z "${4:-}" ] || args+=(-ignore "$4")
	go tool pprof "${args[@]}" "$1" "$2" 2>/dev/null |
		awk '/Showing nodes accounting for/ {v = $5; sub(/,$/, "", v); if (v ~ /ms$/) {sub(/ms$/, "", v); v /= 1000} else sub(/s$/, "", v); print v + 0; found = 1}
			END {if (!found) print 0}'
}

FUNCTION_GROUPS=(
	"kernel: write(2) of the response|syscall\\.write\$|"
	"kernel: read(2) of the request, and the next EAGAIN|syscall\\.read\$|"
	"Go scheduler and netpoll (waiting for the next request)|runtime\\.mcall\$|"
	"fasthttp: request head and body parse|RequestHeader\\)\\.parse\$|Request\\)\\.ContinueReadBody|readLimitBody|syscall\\."
	"fasthttp: response head|ResponseHeader\\)\\.AppendBytes|Response\\)\\.write\$|syscall\\."
	"MCP admission: headers, mirrors, classify|admitHead|admitBody|targetHost|headerSet\\)\\.reset|decode\\.\\(\\*Decoder\\)"
	"MCP decode: the bounded JSON scan|decode\\.\\(\\*Decoder\\)\\.Decode|"
	"executor hand-off: submit, job bookkeeping|pool\\.\\(\\*Executor\\)\\.submit\$|job\\)\\.release|job\\)\\.drop|acquireJob|endInline|beginInline|hostSide"
	"core: route, arguments, handler, result encode|fastmcp\\.\\(\\*hostSide\\)\\.Serve|"
	"the reply into the response|endpoint\\)\\.answer|replyResponse|"
	"bare's handler: the id into fixed bytes|main\\.handle\$|"
	"garbage collection (background)|gcBgMarkWorker|"
)

echo "cpu-groups: $(uptime)" >&2
freqs=$(profile fastmcp "$TMP/fastmcp-bench" serve --fixtures demo --addr 127.0.0.1:0 --pprof 127.0.0.1:0)
breqs=$(profile bare "$TMP/bare" -addr 127.0.0.1:0 -pprof 127.0.0.1:0)
echo "cpu-groups: $(uptime)" >&2

ftot=$(seconds "$TMP/fastmcp-bench" "$TMP/fastmcp.prof")
btot=$(seconds "$TMP/bare" "$TMP/bare.prof")
echo "| group | fastmcp µs/request | bare fasthttp µs/request | difference |"
echo "|---|---|---|---|"
fsum=0 bsum=0
for g in "${FUNCTION_GROUPS[@]}"; do
	# The patterns hold '|': the name is up to the first, the ignore pattern after the last
	# (empty: none), the focus pattern between.
	name=${g%%|*}
	rest=${g#*|}
	ignore=${rest##*|}
	focus=${rest%|*}
	f=$(seconds "$TMP/fastmcp-bench" "$TMP/fastmcp.prof" "$focus" "$ignore")
	b=$(seconds "$TMP/bare" "$TMP/bare.prof" "$focus" "$ignore")
	fsum=$(awk -v a="$fsum" -v b="$f" 'BEGIN {print a + b}')
	bsum=$(awk -v a="$bsum" -v b="$b" 'BEGIN {print a + b}')
	awk -v n="$name" -v f="$f" -v b="$b" -v fr="$freqs" -v br="$breqs" \
		'BEGIN {x = f / fr * 1e6; y = b / br * 1e6; printf "| %s | %.2f | %.2f | %+.2f |\n", n, x, y, x - y}'
done
awk -v ft="$ftot" -v bt="$btot" -v fs="$fsum" -v bs="$bsum" -v fr="$freqs" -v br="$breqs" 'BEGIN {
	x = (ft - fs) / fr * 1e6; y = (bt - bs) / br * 1e6
	printf "| everything else | %.2f | %.2f | %+.2f |\n", x, y, x - y
	x = ft / fr * 1e6; y = bt / br * 1e6
	printf "| **total** | **%.2f** | **%.2f** | **%+.2f** (%.2f×) |\n", x, y, x - y, x / y
	printf "\nrequests in the %s-second profiles: fastmcp %d, bare fasthttp %d\n", '"$SECS"', fr, br
}'
