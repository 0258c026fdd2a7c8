// Command clients measures one peer SDK's MCP client calling the echo tool of a server over
// loopback, for `fastmcp-bench compare-clients`: -client go-sdk or mcp-go, -era modern
// (2026-07-28, each SDK's default: server/discover first) or legacy (the initialize handshake
// offering 2025-11-25). It connects, checks that the call echoes its text, then measures, in
// this process only (the server runs in another):
//
//   - sequential: one caller for -duration, after -warmup: wall time, CPU time (getrusage)
//     and heap allocations (runtime.MemStats) per call;
//   - concurrent: -callers goroutines sharing the one client for -duration, after -warmup:
//     calls per second, CPU and allocations per call.
//
// It prints one JSON line (a clientbench.Result, the shape fastmcp-bench's client-worker
// prints too) and exits 0, or prints the error on stderr and exits
// 1. Every call's result is checked; a failed call ends the run.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/fastmcp-go/fastmcp/bench/clientbench"
)

// echoText is what every call sends and expects back.
const echoText = "hello"

// measureOptions are the phases' flags.
type measureOptions struct {
	warmup, duration time.Duration
	callers          int
}

// session is one connected client: its negotiated revision and one checked call.
type session struct {
	protocol string
	module   string // the SDK's module path and version
	call     func(ctx context.Context) error
	close    func() error
}

func main() {
	which := flag.String("client", "", "the SDK client: go-sdk or mcp-go")
	era := flag.String("era", "modern", "modern (the SDK's default: 2026-07-28 by server/discover) or legacy (initialize, offering 2025-11-25)")
	url := flag.String("url", "", "the server's MCP endpoint")
	opts := measureOptions{}
	flag.DurationVar(&opts.warmup, "warmup", 200*time.Millisecond, "unmeasured calls before each phase")
	flag.DurationVar(&opts.duration, "duration", time.Second, "measured window of each phase")
	flag.IntVar(&opts.callers, "callers", 32, "concurrent callers sharing the client in the concurrent phase")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the measured phases to `file`")
	flag.Parse()
	if err := run(*which, *era, *url, opts, *cpuProfile); err != nil {
		fmt.Fprintln(os.Stderr, "clients:", err)
		os.Exit(1)
	}
}

func run(which, era, url string, opts measureOptions, cpuProfile string) error {
	if era != "modern" && era != "legacy" {
		return fmt.Errorf("-era modern or legacy, not %q", era)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	var s *session
	var err error
	switch which {
	case "go-sdk":
		s, err = connectGoSDK(ctx, url, era == "legacy")
	case "mcp-go":
		s, err = connectMCPGo(ctx, url, era == "legacy")
	default:
		err = fmt.Errorf("-client go-sdk or mcp-go, not %q", which)
	}
	if err == nil {
		err = s.call(ctx) // the check: the tool answers with its text
	}
	cancel()
	if err != nil {
		return err
	}
	defer s.close()
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	res, err := clientbench.Measure(s.call, opts.callers, opts.warmup, opts.duration)
	if err != nil {
		return err
	}
	res.Client, res.Module, res.Protocol = which, s.module, s.protocol
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(b, '\n'))
	return err
}
