package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"flag"
	"log/slog"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/gateway"
)

// gatewayOptions are serve's --backend flags: with any, serve is a gateway in front of them.
type gatewayOptions struct {
	backends []gateway.Backend
	limits   backendLimits    // --backend-limits, by backend name (serve_gateway_limits.go)
	g        *gateway.Gateway // once started
	// trace, with --trace, gives each forwarded call the trace context of its request's span.
	trace gateway.TraceContextFunc
	// noTasks: serve has its own tasks extension, so the gateway passes no tasks through.
	noTasks bool
	// taskIDKeys sign the gateway's task ids: derived from --state-key-file's keys, so that
	// replicas sharing the file serve each other's tasks (nil: a random key).
	taskIDKeys [][]byte
}

// taskIDKeys derives the gateway's task id keys from the state keys (nil for none), each
// its own: a key serves one purpose. A reload of the file (SIGHUP) rotates them with the
// state keys: the first signs new ids, every one verifies, so an id keeps verifying until
// the state key it was signed under leaves the file.
func taskIDKeys(stateKeys [][]byte) [][]byte {
	if stateKeys == nil {
		return nil
	}
	out := make([][]byte, len(stateKeys))
	for i, k := range stateKeys {
		m := hmac.New(sha256.New, k)
		m.Write([]byte("fastmcp gateway task ids"))
		out[i] = m.Sum(nil)
	}
	return out
}

func (o *gatewayOptions) flags(fs *flag.FlagSet) {
	fs.Func("backend", "serve the catalog of an MCP server: `NAME=URL` (http or https, either protocol era) or NAME=stdio:COMMAND ARGS (started, and restarted when it exits); repeatable. With one backend its names are served unchanged, with several as NAME__tool and NAME+scheme:… URIs. Without --fixtures, no fixture is served beside them", func(v string) error {
		b, err := gateway.ParseBackend(v)
		if err != nil {
			return err
		}
		o.backends = append(o.backends, b)
		return nil
	})
	o.limits.flags(fs)
	fs.Func("gateway-config", "read more backends from a JSON `FILE` (at most 1 MiB): every --backend and --backend-limits field, and per-backend credentials from the environment or files (see the gateway package doc); repeatable, combinable with --backend (a name given twice is an error)", func(v string) error {
		bs, err := gateway.LoadConfigFile(v)
		if err != nil {
			return err
		}
		o.backends = append(o.backends, bs...)
		return nil
	})
}

// startGateway connects srv to the backends, returning once each was tried; stop closes
// them (stdio backends are stopped).
func (o *gatewayOptions) start(ctx context.Context, srv *fastmcp.Server, logger *slog.Logger) (stop func() error, err error) {
	if err := o.limits.apply(o.backends); err != nil {
		return nil, err
	}
	g, err := gateway.New(srv, gateway.Config{Backends: o.backends, Logger: logger, TraceContext: o.trace, NoTaskPassThrough: o.noTasks, TaskIDKeys: o.taskIDKeys})
	if err != nil {
		return nil, err
	}
	o.g = g
	g.Start(ctx)
	for _, st := range g.Status() {
		if !st.Up {
			logger.Warn("serve: backend not reachable yet; retrying in the background", "backend", st.Name, "err", st.Err)
		}
	}
	return g.Close, nil
}
