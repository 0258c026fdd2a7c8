package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// npmTools are the pinned Node and npm gateways of the interop toolchain in .tools/.
type npmTools struct{ node, supergateway, mcpProxy string }

// npmGatewaySpec is how compare --gateway runs one npm gateway in front of the stdio server.
type npmGatewaySpec struct {
	name string
	argv func(t npmTools, port int, stdio []string) []string
}

// npmGatewaySpecs: supergateway 4.0.0 serves Streamable HTTP on /mcp (its default
// --streamableHttpPath) and, with --stateful, keeps a session (and a child) per initialize;
// mcp-proxy 6.7.19 serves its stream endpoint on /mcp (--streamEndpoint), stateful by
// default, 2026-07-28 beside the 2025 revisions (--modern, default on), and speaks the
// initialize era to its child (--upstreamProtocol legacy, the default).
var npmGatewaySpecs = []npmGatewaySpec{
	{nameGwSupergateway, func(t npmTools, port int, stdio []string) []string {
		return []string{t.node, t.supergateway, "--stdio", strings.Join(stdio, " "), "--outputTransport", "streamableHttp", "--stateful",
			"--port", strconv.Itoa(port), "--logLevel", "none"}
	}},
	{nameGwMCPProxy, func(t npmTools, port int, stdio []string) []string {
		return append([]string{t.node, t.mcpProxy, "--port", strconv.Itoa(port), "--host", "127.0.0.1", "--"}, stdio...)
	}},
}

// npmGatewayTools finds the npm gateways in the repository's .tools/. When they are missing
// and install is set, it installs the interop toolchain (interop/toolchain.sh's
// install_tools: npm ci of interop/package-lock.json, Node 22 included), as the interop lane
// does; otherwise it says how to.
func npmGatewayTools(ctx context.Context, peersDir string, install bool, live *liveLine) (npmTools, error) {
	if peersDir == "" {
		var err error
		if peersDir, err = findPeersDir(); err != nil {
			return npmTools{}, err
		}
	}
	root := filepath.Dir(filepath.Dir(peersDir))
	t := npmToolsIn(filepath.Join(root, ".tools"))
	if present(t.node, t.supergateway, t.mcpProxy) {
		return t, nil
	}
	if !install {
		return npmTools{}, fmt.Errorf("not installed in %s (--gateway-npm %s installs them)", filepath.Join(root, ".tools"), gatewayNPMInstall)
	}
	live.printf("installing the interop toolchain (Node 22, supergateway, mcp-proxy) into %s…", filepath.Join(root, ".tools"))
	script := `set -e; T="$PWD/.tools"; NPM=${NPM:-npm}; mkdir -p "$T/logs"; source interop/toolchain.sh; install_tools`
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return npmTools{}, fmt.Errorf("installing the interop toolchain: %v: %s", err, strings.TrimSpace(string(out)))
	}
	if !present(t.node, t.supergateway, t.mcpProxy) {
		return npmTools{}, errors.New("the interop toolchain has no supergateway or mcp-proxy (interop/package.json)")
	}
	return t, nil
}

// npmToolsIn are the paths of the tools in the toolchain directory dir.
func npmToolsIn(dir string) npmTools {
	nm := filepath.Join(dir, "node_modules")
	return npmTools{
		node:         filepath.Join(nm, "node", "bin", "node"),
		supergateway: filepath.Join(nm, "supergateway", "dist", "index.js"),
		mcpProxy:     filepath.Join(nm, "mcp-proxy", "dist", "bin", "mcp-proxy.mjs"),
	}
}

func present(paths ...string) bool {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

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
