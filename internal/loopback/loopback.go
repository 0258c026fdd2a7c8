// Package loopback tells whether a host or a listen address names only this machine: the
// rule every package applies where loopback is special (the Host check against DNS
// rebinding, plaintext warnings, http allowed only on loopback, load only to loopback).
package loopback

import (
	"net"
	"strings"
)

// Host reports whether host (a name or an IP address, without brackets or port) is
// localhost, in any case, or a loopback IP address.
func Host(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Addr reports whether a listen address, host:port, binds only loopback; an address
// without a port, or with no host (all interfaces), does not.
func Addr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && Host(host)
}
