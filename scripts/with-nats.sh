#!/usr/bin/env bash
# with-nats.sh CMD [ARGS...]: runs CMD with FASTMCP_TEST_NATS set to the URL of a throwaway
# NATS server (nats://127.0.0.1:PORT), then removes the server, however CMD ends.
#
# The server is Debian's nats-server package (or NATS_SERVER=/path/to/nats-server). When it is
# missing and this runs as root with apt-get, it installs the package; otherwise it says what
# to install and exits 1 (CMD does not run: a bus test without a bus proves nothing). The
# server listens on a free port on 127.0.0.1 only, with its monitoring port (whose /healthz is
# the readiness check) on another, and keeps its pid file and log in a temporary directory.
#
# CMD also gets FASTMCP_TEST_NATS_RESTART, the path of a script that stops the server, waits
# the seconds it is given (default 3), and starts it again on the same port (ready when it
# returns): the outage of the cluster test. The server is removed at exit whichever process
# that restart left running.
set -euo pipefail

log() { echo "with-nats: $*" >&2; }
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin=${NATS_SERVER:-}
if [ -z "$bin" ]; then bin=$(command -v nats-server || true); fi
if [ -z "$bin" ] && apt_install nats-server; then
	bin=$(command -v nats-server || true)
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
	log "no nats-server found: install Debian's nats-server package (sudo apt-get install -y nats-server),"
	log "or set NATS_SERVER to the path of a nats-server binary"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fastmcp-nats.XXXXXX")
child=
# stop_server ends the server named by the pid file (a fresh one after a restart): SIGTERM,
# then SIGKILL if it has not gone within 5 s.
stop_server() {
	local pid
	pid=$(cat "$tmp/nats.pid" 2>/dev/null || true)
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	rm -f "$tmp/nats.pid"
}
cleanup() {
	if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
	stop_server
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The start script starts the server in the background (its pid in nats.pid) and waits up to
# 30 s for /healthz on the monitoring port; it is what the restart script calls too.
cat >"$tmp/start" <<EOF
#!/usr/bin/env bash
set -euo pipefail
setsid "$bin" -a 127.0.0.1 -p "\$1" -m "\$2" -P "$tmp/nats.pid" >>"$tmp/server.log" 2>&1 </dev/null &
pid=\$!
for _ in \$(seq 300); do
	kill -0 "\$pid" 2>/dev/null || exit 1
	if curl -fsS -o /dev/null "http://127.0.0.1:\$2/healthz" 2>/dev/null; then exit 0; fi
	sleep 0.1
done
exit 1
EOF
chmod +x "$tmp/start"

ready=
for _ in 1 2 3 4 5 6 7 8; do
	port=$(free_port)
	mport=$(free_port)
	if "$tmp/start" "$port" "$mport"; then ready=1; break; fi
	stop_server
	tail -n 3 "$tmp/server.log" >&2 || true
done
if [ -z "$ready" ]; then
	log "the server did not start"
	exit 1
fi

cat >"$tmp/restart" <<EOF
#!/usr/bin/env bash
# restart [SECONDS]: stops the NATS server, waits, starts it again on the same ports.
set -euo pipefail
pid=\$(cat "$tmp/nats.pid")
kill -TERM "\$pid"
for _ in \$(seq 100); do kill -0 "\$pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "\$pid" 2>/dev/null || true
rm -f "$tmp/nats.pid"
sleep "\${1:-3}"
exec "$tmp/start" "$port" "$mport"
EOF
chmod +x "$tmp/restart"

export FASTMCP_TEST_NATS="nats://127.0.0.1:$port"
export FASTMCP_TEST_NATS_RESTART="$tmp/restart"
log "NATS $("$bin" --version 2>&1 | awk '{print $NF}') on 127.0.0.1:$port (monitoring :$mport, $tmp)"
# CMD runs in the background so that a signal to this script is handled at once.
"$@" <&0 &
child=$!
set +e
wait "$child"
rc=$?
set -e
child=
exit "$rc"
