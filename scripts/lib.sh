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

# free_port prints a loopback TCP port nothing listens on now, below the kernel's ephemeral
# range (ip_local_port_range): a port in that range can be the local end of any outgoing
# connection on this machine, so a listener may find it taken even though nothing listens
# there (a shared machine with thousands of loopback connections took 4 of 12 such ports in
# one run). Without 4,000 ports below the range, the whole 20000–60000 span is used.
free_port() {
	local p low=32768 lo=20000 span
	read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
	span=$((low - lo))
	if [ "$span" -lt 4000 ]; then lo=1024 span=$((low - lo)); fi
	if [ "$span" -lt 4000 ]; then lo=20000 span=40000; fi
	while :; do
		p=$((lo + RANDOM % span))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
	done
}
