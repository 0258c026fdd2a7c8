package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// npmGateway is a gateway of npm (supergateway, mcp-proxy) started by compare --gateway, in
// a process group of its own with the stdio server it runs, so that stop ends both.
type npmGateway struct {
	name string
	url  string
	cmd  *exec.Cmd
	done chan struct{}
	logs lockedTail
}

// startNPMGateway runs argv (under taskset -c cpu when cpu >= 0); url is where it will
// listen. Readiness is the caller's: its session opens once the gateway and its child are up.
func startNPMGateway(ctx context.Context, name string, cpu int, url string, argv []string) (*npmGateway, error) {
	if cpu >= 0 {
		argv = append([]string{"taskset", "-c", strconv.Itoa(cpu)}, argv...)
	}
	g := &npmGateway{name: name, url: url, done: make(chan struct{})}
	g.cmd = exec.Command(argv[0], argv[1:]...)
	g.cmd.Env = os.Environ()
	g.cmd.Stdout, g.cmd.Stderr = &g.logs, &g.logs
	g.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := g.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	go func() { _ = g.cmd.Wait(); close(g.done) }()
	select {
	case <-g.done:
		return nil, fmt.Errorf("%s exited at once: %s", name, g.logs.String())
	case <-ctx.Done():
		g.stop()
		return nil, ctx.Err()
	default:
	}
	return g, nil
}

// stop ends the process group: SIGTERM, then SIGKILL after 5 s.
func (g *npmGateway) stop() {
	pgid := -g.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-g.done:
	case <-time.After(5 * time.Second):
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL) // the stdio child too, should it outlive its parent
	<-g.done
}
