package oauth

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/fastmcp-go/fastmcp/internal/loopback"
)

// canonicalResource checks that s is a canonical resource URI (RFC 8707 §2, RFC 9728 §1.2):
// absolute, https (http only on a loopback host), lowercase scheme and host, no userinfo,
// query or fragment, no trailing slash. It returns the parsed URL.
func canonicalResource(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: Resource %q is not a URL", ErrInvalidConfig, s)
	case u.Scheme != "https" && u.Scheme != "http" || u.Host == "" || u.Opaque != "":
		return nil, fmt.Errorf("%w: Resource %q must be an absolute https URL", ErrInvalidConfig, s)
	case u.Scheme == "http" && !loopback.Host(u.Hostname()):
		return nil, fmt.Errorf("%w: Resource %q must use https (http only on a loopback host)", ErrInvalidConfig, s)
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#"):
		return nil, fmt.Errorf("%w: Resource %q must have no userinfo, query or fragment", ErrInvalidConfig, s)
	case strings.HasSuffix(u.Path, "/"):
		return nil, fmt.Errorf("%w: Resource %q must have no trailing slash", ErrInvalidConfig, s)
	case s != u.Scheme+"://"+strings.ToLower(u.Host)+u.EscapedPath():
		return nil, fmt.Errorf("%w: Resource %q is not canonical (lowercase scheme and host)", ErrInvalidConfig, s)
	case strings.ContainsAny(s, `"\ `):
		return nil, fmt.Errorf("%w: Resource %q contains a quote, backslash or space", ErrInvalidConfig, s)
	}
	return u, nil
}

// fetchURL checks a URL the server fetches from (a JWKS, an introspection endpoint): https,
// or http on a loopback host (tests, a sidecar).
func fetchURL(name, s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "":
		return fmt.Errorf("%w: %s %q is not an absolute URL", ErrInvalidConfig, name, s)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && loopback.Host(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%w: %s %q must use https (http only on a loopback host)", ErrInvalidConfig, name, s)
}
