# shellcheck shell=bash
# What the scripts/with-*.sh wrappers share: sourced, after each defines log().

# apt_install PACKAGE: installs Debian's PACKAGE with apt-get when this runs as root and
# apt-get exists; returns 1 (installing nothing) otherwise.
apt_install() {
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
	log "installing Debian's $1 package (apt-get)"
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$1" >&2
}

# free_port prints a loopback TCP port nothing listens on now.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
	done
}
