package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/gateway"
)

// backendLimits are the --backend-limits flags: each backend's limits, by name, applied to
// the --backend of that name when the gateway starts (a flag may come before its backend).
// Each key given replaces that one limit; the others keep what --gateway-config set.
type backendLimits map[string][]func(*gateway.Backend)

func (l *backendLimits) flags(fs *flag.FlagSet) {
	fs.Func("backend-limits", "limit the calls to one --backend: `NAME:KEY=VALUE,…` with keys timeout (a duration; default the client's 30 s request timeout), max-concurrent (calls in flight; default unlimited), rate (calls a second; default unlimited), burst (default the rate rounded up), breaker-failures (calls in a row failing or timing out that open its circuit breaker; default 5) and breaker-cooldown (default 5s); repeatable; each key given replaces that limit of a --gateway-config backend, the others stay", l.set)
}

// set parses one --backend-limits value.
func (l *backendLimits) set(v string) error {
	name, list, ok := strings.Cut(v, ":")
	if !ok || name == "" || list == "" {
		return fmt.Errorf("%q: want NAME:KEY=VALUE,…", v)
	}
	var sets []func(*gateway.Backend)
	for kv := range strings.SplitSeq(list, ",") {
		key, val, _ := strings.Cut(kv, "=")
		set, err := limitSetter(key, val)
		if err != nil {
			return fmt.Errorf("%q: %w", v, err)
		}
		sets = append(sets, set)
	}
	if *l == nil {
		*l = backendLimits{}
	}
	(*l)[name] = append((*l)[name], sets...)
	return nil
}

// limitSetter is what KEY=VALUE sets on a backend.
func limitSetter(key, val string) (func(*gateway.Backend), error) {
	switch key {
	case "timeout":
		return parsedLimit(key, val, time.ParseDuration, func(b *gateway.Backend) *time.Duration { return &b.Timeout })
	case "max-concurrent":
		return parsedLimit(key, val, strconv.Atoi, func(b *gateway.Backend) *int { return &b.MaxConcurrent })
	case "rate":
		return parsedLimit(key, val, parseFloat, func(b *gateway.Backend) *float64 { return &b.Rate })
	case "burst":
		return parsedLimit(key, val, strconv.Atoi, func(b *gateway.Backend) *int { return &b.Burst })
	case "breaker-failures":
		return parsedLimit(key, val, strconv.Atoi, func(b *gateway.Backend) *int { return &b.BreakerFailures })
	case "breaker-cooldown":
		return parsedLimit(key, val, time.ParseDuration, func(b *gateway.Backend) *time.Duration { return &b.BreakerCooldown })
	}
	return nil, fmt.Errorf("unknown key %q (timeout, max-concurrent, rate, burst, breaker-failures, breaker-cooldown)", key)
}

// parsedLimit parses val now and returns what sets it on the field of a backend.
func parsedLimit[T any](key, val string, parse func(string) (T, error), field func(*gateway.Backend) *T) (func(*gateway.Backend), error) {
	v, err := parse(val)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return func(b *gateway.Backend) { *field(b) = v }, nil
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

// apply sets the limits on the backends they name; naming no backend is an error.
func (l backendLimits) apply(backends []gateway.Backend) error {
	seen := map[string]bool{}
	for i := range backends {
		b := &backends[i]
		sets, ok := l[b.Name]
		if !ok {
			continue
		}
		seen[b.Name] = true
		for _, set := range sets {
			set(b)
		}
	}
	for name := range l {
		if !seen[name] {
			return fmt.Errorf("%w: --backend-limits %s: no --backend of that name", gateway.ErrInvalidConfig, name)
		}
	}
	return nil
}
