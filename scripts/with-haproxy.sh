#!/usr/bin/env bash
# with-haproxy.sh BACKEND... -- CMD [ARGS...]: runs CMD with FASTMCP_PROXY_URL set to the
# address of a throwaway HAProxy (http://127.0.0.1:PORT) in front of the BACKENDs, then
# removes the proxy, however CMD ends.
#
# Each BACKEND is HOST:PORT of an HTTP server answering GET /readyz (fastmcp-bench serve
# --health): 200 while it serves, 503 from the start of its drain. The generated config is
# what an operator of a fastmcp cluster needs:
#   - round-robin, no affinity (no cookie, no stick table, no hash): any request may land on
#     any replica;
#   - no buffering of event streams: HTTP mode streams responses as they come (no
#     http-buffer-request, no compression, which would hold SSE events back);
#   - timeouts above the replicas' keep-alive interval (PROXY_IDLE_TIMEOUT, default 60s,
#     against serve's 15 s keep-alive comments), so an idle listen stream is never cut;
#   - health checks on /readyz every PROXY_CHECK_INTERVAL (default 500ms; down after 2
#     failures, up after 1 success), so a draining replica gets no new requests: a backend
#     must go on accepting and serving, /readyz 503, for at least the interval × 2 + one
#     interval before it closes its socket (serve --drain-delay, 1.5 s at the default;
#     interop/cluster.sh gives 2s), or requests meet refused connections until it is DOWN;
#   - a request whose connection to a dead replica fails, or that a replica refuses with 503
#     (fastmcp answers 503 only for work it did not start: shutting down, executor or
#     subscription capacity), is sent to another (retries 6, retry-on conn-failure 503,
#     option redispatch 1: each retry on another replica, so two dead ones are passed over
#     before the checks notice them); a request that got no answer (empty-response) is not retried, as
#     the replica may have run it.
#
# HAProxy is Debian's haproxy package (or HAPROXY=/path/to/haproxy). When it is missing and
# this runs as root with apt-get, it installs the package; otherwise it says what to install
# and exits 1. The proxy listens on a free port on 127.0.0.1, with its statistics page on
# another (FASTMCP_PROXY_STATS, CSV with ";csv" appended); its config and log are in a
# temporary directory, and the log (FASTMCP_PROXY_LOG) has a line for every request that
# failed or ended abnormally, with HAProxy's termination state (normal ones are not logged). Readiness: the statistics page answers and every backend is UP
# (within 30 s), so CMD's first request has somewhere to go; with PROXY_WAIT_UP=0 only the
# statistics page (for a CMD that starts the backends itself and waits for them there).
set -euo pipefail

log() { echo "with-haproxy: $*" >&2; }
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

backends=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	backends+=("$1")
	shift
done
if [ $# -lt 2 ] || [ ${#backends[@]} -eq 0 ]; then
	echo "usage: with-haproxy.sh HOST:PORT... -- CMD [ARGS...]" >&2
	exit 2
fi
shift

bin=${HAPROXY:-}
if [ -z "$bin" ]; then bin=$(command -v haproxy || true); fi
if [ -z "$bin" ] && apt_install haproxy; then
	bin=$(command -v haproxy || true)
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
	log "no haproxy found: install Debian's haproxy package (sudo apt-get install -y haproxy),"
	log "or set HAPROXY to the path of an haproxy binary"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fastmcp-haproxy.XXXXXX")
server=
child=
cleanup() {
	if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
	if [ -n "$server" ]; then
		kill -TERM "$server" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

idle=${PROXY_IDLE_TIMEOUT:-60s}
inter=${PROXY_CHECK_INTERVAL:-500ms}

# write_config PORT STATS_PORT: the config, with one server line per backend.
write_config() {
	local i=0 b
	cat <<EOF
global
	log stderr format raw local0 info
	maxconn 4096

defaults
	mode http
	log global
	option dontlognull
	option httplog
	option dontlog-normal
	timeout connect 2s
	timeout client $idle
	timeout server $idle
	timeout http-request 10s
	timeout http-keep-alive $idle
	retries 6
	retry-on conn-failure 503
	option redispatch 1

frontend mcp
	bind 127.0.0.1:$1
	default_backend replicas

backend replicas
	balance roundrobin
	option httpchk GET /readyz
	http-check expect status 200
	default-server inter $inter fastinter $inter downinter $inter fall 2 rise 1
EOF
	for b in "${backends[@]}"; do
		i=$((i + 1))
		echo "	server r$i $b check"
	done
	cat <<EOF

frontend stats
	bind 127.0.0.1:$2
	stats enable
	stats uri /stats
	stats refresh 0
EOF
}

# all_up STATS_URL: every backend server of "replicas" reports UP.
all_up() {
	local csv
	csv=$(curl -fsS "$1;csv" 2>/dev/null) || return 1
	[ "${PROXY_WAIT_UP:-1}" = 0 ] && return 0
	[ "$(awk -F, '$1 == "replicas" && $2 != "BACKEND" && $18 == "UP"' <<<"$csv" | wc -l)" -eq "${#backends[@]}" ]
}

ready=
for _ in 1 2 3 4 5 6 7 8; do
	port=$(free_port)
	sport=$(free_port)
	write_config "$port" "$sport" >"$tmp/haproxy.cfg"
	"$bin" -c -q -f "$tmp/haproxy.cfg" >&2 || { log "invalid config:"; cat "$tmp/haproxy.cfg" >&2; exit 1; }
	"$bin" -db -f "$tmp/haproxy.cfg" >"$tmp/haproxy.log" 2>&1 </dev/null &
	server=$!
	stats="http://127.0.0.1:$sport/stats"
	for _ in $(seq 300); do
		kill -0 "$server" 2>/dev/null || break
		if all_up "$stats"; then ready=1; break; fi
		sleep 0.1
	done
	if [ -n "$ready" ]; then break; fi
	if kill -0 "$server" 2>/dev/null; then
		log "not every backend came UP within 30 s:"
		curl -fsS "$stats;csv" 2>/dev/null | awk -F, '$1 == "replicas" {print "  " $2 " " $18 " " $37}' >&2 || true
		exit 1
	fi
	wait "$server" 2>/dev/null || true
	server=
	tail -n 3 "$tmp/haproxy.log" >&2 || true
done
if [ -z "$ready" ]; then
	log "the proxy did not start"
	exit 1
fi

export FASTMCP_PROXY_URL="http://127.0.0.1:$port"
export FASTMCP_PROXY_STATS="$stats"
export FASTMCP_PROXY_LOG="$tmp/haproxy.log"
log "HAProxy $("$bin" -v | awk 'NR == 1 {print $3}') on 127.0.0.1:$port in front of ${backends[*]} (statistics $stats, $tmp)"
"$@" <&0 &
child=$!
set +e
wait "$child"
rc=$?
set -e
child=
exit "$rc"
