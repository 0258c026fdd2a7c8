package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// gatewayEndpoint is one process compare --gateway measures.
type gatewayEndpoint struct {
	name   string
	url    string
	pid    int
	tree   bool   // its CPU includes its children's (a stdio backend)
	engine string // the generator's engine
	npm    bool   // a peer: a revision it does not serve is a note, not a failure
}

// startGatewayRows starts the backend, the two gateways and the npm gateways (unless
// --gateway-npm off) and prepares a row per endpoint and revision of --dialects: a
// 2025-11-25 row runs in one session opened here. stop ends them all (also on error).
// notes say which rows could not be measured and why.
func startGatewayRows(ctx context.Context, o *compareOptions, cpu int, live *liveLine) (rows []*gatewayRow, notes []string, stop func(), err error) {
	var children []*child
	var npm []*npmGateway
	stop = func() {
		for _, g := range npm {
			g.stop()
		}
		for _, c := range slices.Backward(children) {
			c.stop()
		}
	}
	bin, err := self()
	if err != nil {
		return nil, nil, stop, err
	}
	if strings.ContainsAny(bin, " \t") {
		return nil, nil, stop, fmt.Errorf("this binary's path %q has a space, which --backend NAME=stdio:COMMAND cannot carry", bin)
	}
	stdioArgv := []string{bin, "serve", "--stdio"}
	var endpoints []gatewayEndpoint
	start := func(name string, tree bool, args ...string) (*child, error) {
		c, err := startChild(ctx, name, cpu, append([]string{bin, "serve", "--addr", "127.0.0.1:0", "--tasks-store", "off"}, args...)...)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
		endpoints = append(endpoints, gatewayEndpoint{name: name, url: c.url, pid: c.pid(), tree: tree})
		return c, nil
	}
	backend, err := start(nameGwDirect, false, "--fixtures", "demo")
	if err != nil {
		return nil, nil, stop, err
	}
	if _, err := start(nameGwHTTP, false, "--backend", "web="+backend.url); err != nil {
		return nil, nil, stop, err
	}
	if _, err := start(nameGwStdio, true, "--backend", "local=stdio:"+strings.Join(stdioArgv, " ")); err != nil {
		return nil, nil, stop, err
	}
	if o.gatewayNPM != gatewayNPMOff {
		tools, terr := npmGatewayTools(ctx, o.peersDir, o.gatewayNPM == gatewayNPMInstall, live)
		for _, spec := range npmGatewaySpecs {
			if terr != nil {
				notes = append(notes, spec.name+": not measured: "+terr.Error())
				continue
			}
			port, err := freePort()
			if err != nil {
				return nil, nil, stop, err
			}
			g, err := startNPMGateway(ctx, spec.name, cpu, fmt.Sprintf("http://127.0.0.1:%d/mcp", port), spec.argv(tools, port, stdioArgv))
			if err != nil {
				return nil, nil, stop, err
			}
			npm = append(npm, g)
			// Their replies come as SSE, framed by chunks, which the epoll engine does not parse.
			endpoints = append(endpoints, gatewayEndpoint{name: spec.name, url: g.url, pid: g.cmd.Process.Pid, tree: true,
				engine: loadtest.EngineGoroutines, npm: true})
		}
	}
	for _, ep := range endpoints {
		for _, d := range o.dialectList {
			row, err := prepareGatewayRow(ctx, ep, d)
			switch {
			case err == nil:
				rows = append(rows, row)
			case ep.npm:
				notes = append(notes, fmt.Sprintf("%s %s: not measured: %v", ep.name, d, err))
			default:
				return nil, nil, stop, fmt.Errorf("%s %s: %w", ep.name, d, err)
			}
		}
	}
	return rows, notes, stop, nil
}

// prepareGatewayRow checks that ep serves revision d: in 2025-11-25 it opens the session
// every connection's calls will carry (an npm gateway's stateful mode refuses calls outside
// one); in 2026-07-28 it sends one echo call.
func prepareGatewayRow(ctx context.Context, ep gatewayEndpoint, d loadtest.Dialect) (*gatewayRow, error) {
	t := loadtest.Target{URL: ep.url, Dialect: d, PID: ep.pid, CPUTree: ep.tree}
	if d == loadtest.DialectLegacy {
		sid, err := openSessionWithin(ctx, ep.url, 30*time.Second)
		if err != nil {
			return nil, err
		}
		t.Session = sid
	} else if err := checkWithin(ctx, t, 30*time.Second); err != nil {
		return nil, err
	}
	return newGatewayRow(ep.name, t, ep.engine), nil
}

// openSessionWithin opens a 2025-11-25 session, retrying while the endpoint is not yet up
// (an npm gateway listens a moment after it starts, and answers only once its child has).
func openSessionWithin(ctx context.Context, url string, d time.Duration) (string, error) {
	var sid string
	err := retryWhileDown(ctx, d, func() (err error) {
		sid, err = loadtest.OpenSession(ctx, loadtest.Target{URL: url})
		return err
	})
	return sid, err
}

// checkWithin is loadtest.Check, retried while the endpoint is not yet up.
func checkWithin(ctx context.Context, t loadtest.Target, d time.Duration) error {
	return retryWhileDown(ctx, d, func() error { return loadtest.Check(ctx, t) })
}

// retryWhileDown calls try until it succeeds, fails otherwise than by a refused
// connection, or d has passed.
func retryWhileDown(ctx context.Context, d time.Duration, try func() error) error {
	deadline := time.Now().Add(d)
	for {
		err := try()
		if err == nil || !errors.Is(err, loadtest.ErrTargetDown) || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		select { // a poll interval, bounded by the deadline above
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
