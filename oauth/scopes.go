package oauth

import (
	"fmt"
	"slices"
	"strings"
)

// Implies maps a broader scope to the narrower scopes it grants (2026-07-28: a server must
// honour scope hierarchies). It is followed transitively: with {"admin": {"write"}, "write":
// {"read"}}, a token with "admin" satisfies "read". Cycles are harmless.
type Implies map[string][]string

// grants reports whether the granted scopes satisfy want, directly or through h.
func (h Implies) grants(granted []string, want string) bool {
	if slices.Contains(granted, want) {
		return true
	}
	if len(h) == 0 {
		return false
	}
	// A breadth-first walk from the granted scopes; the hierarchy is configuration, small.
	seen := make(map[string]bool, len(granted))
	queue := append([]string(nil), granted...)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if seen[s] {
			continue
		}
		seen[s] = true
		for _, n := range h[s] {
			if n == want {
				return true
			}
			queue = append(queue, n)
		}
	}
	return false
}

// satisfies reports whether granted covers every scope of required.
func (h Implies) satisfies(granted, required []string) bool {
	for _, r := range required {
		if !h.grants(granted, r) {
			return false
		}
	}
	return true
}

// validScope reports whether s is a scope-token (RFC 6749 §3.3): printable ASCII without
// space, double quote or backslash, so it can go in a quoted challenge parameter as is.
func validScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// checkScopes validates a configured list of scopes.
func checkScopes(field string, scopes []string) error {
	for _, s := range scopes {
		if !validScope(s) {
			return fmt.Errorf("%w: %s has %q, which is not a scope token", ErrInvalidConfig, field, s)
		}
	}
	return nil
}

// union returns a's scopes followed by those of b it lacks, in order.
func union(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := slices.Clip(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// splitScope splits a space-delimited scope string (RFC 6749 §3.3, RFC 7662, RFC 9068).
func splitScope(s string) []string {
	return strings.Fields(s)
}
