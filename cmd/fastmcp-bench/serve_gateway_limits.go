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
type backendLimits map[string]gateway.Backend

func (l *backendLimits) flags(fs *flag.FlagSet) {
	fs.Func("backend-limits", "limit the calls to one --backend: `NAME:KEY=VALUE,…` with keys timeout (a duration; default the client's 30 s request timeout), max-concurrent (calls in flight; default unlimited), rate (calls a second; default unlimited), burst (default the rate rounded up), breaker-failures (calls in a row failing or timing out that open its circuit breaker; default 5) and breaker-cooldown (default 5s); repeatable", l.set)
}

// set parses one --backend-limits value.
func (l *backendLimits) set(v string) error {
	name, list, ok := strings.Cut(v, ":")
	if !ok || name == "" || list == "" {
		return fmt.Errorf("%q: want NAME:KEY=VALUE,…", v)
	}
	if *l == nil {
		*l = backendLimits{}
	}
	b := (*l)[name]
	for kv := range strings.SplitSeq(list, ",") {
		key, val, _ := strings.Cut(kv, "=")
		var err error
		switch key {
		case "timeout":
			b.Timeout, err = time.ParseDuration(val)
		case "max-concurrent":
			b.MaxConcurrent, err = strconv.Atoi(val)
		case "rate":
			b.Rate, err = strconv.ParseFloat(val, 64)
		case "burst":
			b.Burst, err = strconv.Atoi(val)
		case "breaker-failures":
			b.BreakerFailures, err = strconv.Atoi(val)
		case "breaker-cooldown":
			b.BreakerCooldown, err = time.ParseDuration(val)
		default:
			return fmt.Errorf("%q: unknown key %q (timeout, max-concurrent, rate, burst, breaker-failures, breaker-cooldown)", v, key)
		}
		if err != nil {
			return fmt.Errorf("%q: %s: %w", v, key, err)
		}
	}
	(*l)[name] = b
	return nil
}

// apply sets the limits on the backends they name; naming no backend is an error.
func (l backendLimits) apply(backends []gateway.Backend) error {
	seen := map[string]bool{}
	for i := range backends {
		b := &backends[i]
		lim, ok := l[b.Name]
		if !ok {
			continue
		}
		seen[b.Name] = true
		b.Timeout, b.MaxConcurrent, b.Rate, b.Burst = lim.Timeout, lim.MaxConcurrent, lim.Rate, lim.Burst
		b.BreakerFailures, b.BreakerCooldown = lim.BreakerFailures, lim.BreakerCooldown
	}
	for name := range l {
		if !seen[name] {
			return fmt.Errorf("%w: --backend-limits %s: no --backend of that name", gateway.ErrInvalidConfig, name)
		}
	}
	return nil
}
