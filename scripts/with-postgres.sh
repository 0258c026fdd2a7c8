#!/usr/bin/env bash
# with-postgres.sh CMD [ARGS...]: runs CMD with FASTMCP_TEST_POSTGRES set to the DSN of a
# throwaway PostgreSQL server (the tests of tasks/pgstore read it), then removes the server,
# however CMD ends.
#
# The server comes from Debian's postgresql package (initdb, postgres and pg_isready under
# /usr/lib/postgresql/<version>/bin, or PG_BIN=dir). When it is missing and this runs as root
# with apt-get, it installs the package; otherwise it says what to install and runs CMD
# without the DSN (the pg tests then skip, or fail under CI=true). The cluster lives in a
# temporary directory, listens on a free port on 127.0.0.1 only (and a socket in that
# directory), and runs as the postgres system user when this runs as root (the server
# refuses root).
set -euo pipefail

log() { echo "with-postgres: $*" >&2; }
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

find_bin() {
	local dir=${PG_BIN:-}
	if [ -z "$dir" ]; then dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1); fi
	if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/postgres" ] && [ -x "$dir/pg_isready" ]; then echo "$dir"; fi
}

bin=$(find_bin)
if [ -z "$bin" ] && apt_install postgresql; then
	bin=$(find_bin)
fi
if [ -z "$bin" ]; then
	log "no PostgreSQL server found (initdb, postgres, pg_isready): install Debian's postgresql package"
	log "(sudo apt-get install -y postgresql), or set PG_BIN to the directory of initdb, postgres and pg_isready;"
	log "running without FASTMCP_TEST_POSTGRES: the tasks/pgstore tests skip (fail under CI=true)"
	"$@"
	exit
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fastmcp-pg.XXXXXX")
as_pg=()
if [ "$(id -u)" = 0 ]; then
	if ! id postgres >/dev/null 2>&1; then
		log "running as root needs the postgres system user (Debian's postgresql package creates it)"
		rm -rf "$tmp"
		exit 1
	fi
	chown postgres: "$tmp"
	# setpriv execs, so the server stays this script's child (and is reaped by it).
	if command -v setpriv >/dev/null; then
		as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups --)
	else
		as_pg=(runuser -u postgres --)
	fi
fi

server=
child=
# stop_server asks the server for a fast shutdown (SIGINT) and waits for it; a signal sent
# before the server installed its handlers is lost, so it asks again, then insists.
stop_server() {
	local sig
	for sig in INT INT QUIT KILL; do
		kill -"$sig" "$server" 2>/dev/null || break
		for _ in $(seq 50); do
			kill -0 "$server" 2>/dev/null || break 2
			sleep 0.1
		done
	done
	wait "$server" 2>/dev/null || true
	server=
}
cleanup() {
	if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
	if [ -n "$server" ]; then stop_server; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${as_pg[@]}" "$bin/initdb" -D "$tmp/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >"$tmp/initdb.log" 2>&1 ||
	{ cat "$tmp/initdb.log" >&2; exit 1; }

# A free port: a random one nothing listens on; if another process takes it first the
# server exits, and the next one is tried. Readiness is pg_isready's answer, within 60 s.
ready=
for _ in 1 2 3 4 5 6 7 8; do
	port=$((20000 + RANDOM % 40000))
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
	"${as_pg[@]}" "$bin/postgres" -D "$tmp/data" -c listen_addresses=127.0.0.1 -p "$port" -k "$tmp" \
		-c max_connections=100 >"$tmp/server.log" 2>&1 &
	server=$!
	for _ in $(seq 600); do
		if ! kill -0 "$server" 2>/dev/null; then break; fi
		if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then ready=1; break; fi
		sleep 0.1
	done
	if [ -n "$ready" ]; then break; fi
	stop_server
	tail -n 3 "$tmp/server.log" >&2 || true
done
if [ -z "$ready" ]; then
	log "the server did not start"
	exit 1
fi

export FASTMCP_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($tmp)"
# CMD runs in the background so that a signal to this script is handled at once (wait
# returns): CMD is stopped, then the server.
"$@" <&0 &
child=$!
set +e
wait "$child"
rc=$?
set -e
child=
exit "$rc"
