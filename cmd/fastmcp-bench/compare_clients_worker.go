package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"time"

	"github.com/fastmcp-go/fastmcp/bench/clientbench"
	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/client/inprocess"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
)

func init() {
	register(command{
		Name:    "client-worker",
		Summary: "(for compare-clients) measure the fastmcp client calling echo in this process; one JSON line",
		Run: func(ctx context.Context, args []string) int {
			return clientWorker(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

// The echo call every client of compare-clients makes, and the content it must get back.
var (
	workerArgs    = json.RawMessage(`{"text":"hello"}`)
	workerContent = []byte(`[{"type":"text","text":"hello"}]`)
)

// clientWorker is `fastmcp-bench client-worker -client fastmcp|direct -era modern|legacy -url
// URL`: it connects the fastmcp client (direct: in-process to a demo server of its own, with
// no transport), checks one call, measures as bench/peers/clients does and prints the JSON.
func clientWorker(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("client-worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	which := fs.String("client", "fastmcp", "fastmcp (over HTTP to -url), oauth (the same with client/oauth, to an OAuth resource server) or direct (in-process, inprocess.Connect)")
	era := fs.String("era", "modern", "modern (2026-07-28) or legacy (initialize, 2025-11-25)")
	url := fs.String("url", "", "the server's MCP endpoint (not for direct)")
	warmup := fs.Duration("warmup", 200*time.Millisecond, "unmeasured calls before each phase")
	duration := fs.Duration("duration", time.Second, "measured window of each phase")
	callers := fs.Int("callers", 32, "concurrent callers sharing the client in the concurrent phase")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the measured phases to `file`")
	if err := fs.Parse(args); err != nil {
		return usageStatus(err)
	}
	c, err := workerClient(ctx, *which, *era, *url)
	if err != nil {
		fmt.Fprintln(stderr, "client-worker:", err)
		return 1
	}
	defer c.Close()
	call := func(ctx context.Context) error {
		res, err := c.CallTool(ctx, "echo", workerArgs)
		if err != nil {
			return err
		}
		if res.IsError || !bytes.Equal(res.Content, workerContent) {
			return fmt.Errorf("tools/call echo: unexpected result %s", res.Raw)
		}
		return nil
	}
	if err := call(ctx); err != nil {
		fmt.Fprintln(stderr, "client-worker:", err)
		return 1
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(stderr, "client-worker:", err)
			return 1
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	res, err := clientbench.Measure(call, *callers, *warmup, *duration)
	if err != nil {
		fmt.Fprintln(stderr, "client-worker:", err)
		return 1
	}
	res.Client, res.Module, res.Protocol = *which, "github.com/fastmcp-go/fastmcp "+version(), c.ProtocolVersion()
	b, _ := json.Marshal(res)
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}

// workerClient connects the client a worker measures.
func workerClient(ctx context.Context, which, era, url string) (*client.Client, error) {
	cfg := client.Config{ClientName: "fastmcp-bench", ClientVersion: version()}
	switch era {
	case "modern":
		cfg.Era = client.EraModern // pinned: the figures are of 2026-07-28 whatever the server
	case "legacy":
		cfg.Era = client.EraLegacy
	default:
		return nil, fmt.Errorf("-era modern or legacy, not %q", era)
	}
	switch which {
	case "oauth":
		a, err := oauthAuthorizer(url)
		if err != nil {
			return nil, err
		}
		cfg.Authorizer = a
		fallthrough
	case "fastmcp":
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return client.Connect(ctx, url, cfg)
	case "direct":
		srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "fastmcp-bench", Version: version()},
			&fastmcp.Config{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return nil, err
		}
		fixtures.Demo(srv)
		return inprocess.Connect(srv, cfg)
	}
	return nil, fmt.Errorf("-client fastmcp, oauth or direct, not %q", which)
}
