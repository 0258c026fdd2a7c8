package streamable

import (
	"bytes"
	"net"
	"net/url"
	"strings"

	"github.com/fastmcp-go/fastmcp/internal/loopback"
)

// hostPolicy holds the Origin and Host allowlists, normalized once.
type hostPolicy struct {
	origins   []hostEntry
	hosts     []string // lower case, no port
	loopback  bool     // Host must be a loopback name (DNS-rebinding protection)
	checkHost bool
}

type hostEntry struct {
	host string // lower case, brackets removed
	port string // "" for any port
}

func newHostPolicy(c Config, loopback bool) hostPolicy {
	p := hostPolicy{}
	for _, o := range c.AllowedOriginHosts {
		h, port := splitHostPort(o)
		p.origins = append(p.origins, hostEntry{host: h, port: port})
	}
	for _, h := range c.AllowedHosts {
		host, _ := splitHostPort(h)
		p.hosts = append(p.hosts, host)
	}
	p.loopback = loopback && !c.DisableHostCheck
	p.checkHost = len(p.hosts) > 0 || p.loopback
	return p
}

// splitHostPort splits "host", "host:port", "[::1]:port" or "::1", lower-casing the host.
func splitHostPort(s string) (host, port string) {
	s = strings.TrimSpace(s)
	if h, p, err := net.SplitHostPort(s); err == nil {
		return strings.ToLower(strings.Trim(h, "[]")), p
	}
	return strings.ToLower(strings.Trim(s, "[]")), ""
}

// checkOrigin applies the Origin allowlist to the request's Origin headers (none: allowed;
// two or more, userinfo, or an unparsable value: refused).
func (p *hostPolicy) checkOrigin(values [][]byte) bool {
	switch len(values) {
	case 0:
		return true
	case 1:
	default:
		return false
	}
	u, err := url.Parse(string(bytes.TrimSpace(values[0])))
	if err != nil || u.User != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	for _, e := range p.origins {
		if e.host == host && (e.port == "" || e.port == port) {
			return true
		}
	}
	return false
}

// checkHost applies the Host policy to the Host header value.
func (p *hostPolicy) checkHostHeader(host []byte) bool {
	if !p.checkHost {
		return true
	}
	if len(host) == 0 {
		return false
	}
	if len(p.hosts) == 0 && isLoopbackHostFast(host) {
		return true
	}
	h, _ := splitHostPort(string(host))
	if len(p.hosts) > 0 {
		for _, a := range p.hosts {
			if a == h {
				return true
			}
		}
		return false
	}
	return loopback.Host(h)
}

// isLoopbackHostFast recognizes the common loopback Host values ("127.0.0.1:8080",
// "localhost", "[::1]:80") without allocating; anything else takes the general path.
func isLoopbackHostFast(host []byte) bool {
	for _, name := range [...]string{"127.0.0.1", "localhost", "[::1]"} {
		if len(host) < len(name) || string(host[:len(name)]) != name {
			continue
		}
		rest := host[len(name):]
		if len(rest) == 0 {
			return true
		}
		if rest[0] != ':' || len(rest) == 1 {
			return false
		}
		for _, c := range rest[1:] {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	return false
}
