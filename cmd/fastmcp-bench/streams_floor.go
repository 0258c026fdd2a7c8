package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

func init() {
	register(command{
		Name:    "fanout-floor",
		Summary: "(for run sse-keepalive) the write floor of the list_changed fan-out; prints its URL line",
		Run: func(ctx context.Context, args []string) int {
			return fanoutFloor(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

// fanoutFloor serves a loadtest.FloorServer until ctx ends (SIGTERM).
func fanoutFloor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fanout-floor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	streams := fs.Int("streams", loadtest.DefaultStreams, "listen streams to hold at most")
	writers := fs.Int("writers", 0, "goroutines that write each round (GOMAXPROCS if 0)")
	wireJSON := fs.String("wire", "", "the bytes to write, as JSON: head, ack and event (base64), recorded from the server's stream")
	if err := fs.Parse(args); err != nil {
		return usageStatus(err)
	}
	var wire loadtest.FloorWire
	if err := json.Unmarshal([]byte(*wireJSON), &wire); err != nil {
		fmt.Fprintln(stderr, "fanout-floor: --wire:", err)
		return 2
	}
	f, err := loadtest.NewFloorServer(*addr, wire, *streams, *writers)
	if err != nil {
		fmt.Fprintln(stderr, "fanout-floor:", err)
		return 1
	}
	served := make(chan error, 1)
	go func() { served <- f.Serve() }()
	if err := announce(stdout, f.URL(), debugURLs{}); err != nil {
		_ = f.Close()
		<-served
		return 1
	}
	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintln(stderr, "fanout-floor:", err)
		_ = f.Close()
		return 1
	}
	_ = f.Close()
	<-served
	return 0
}

// childFloor is a loadtest.FloorStarter that runs the floor as a child process of bin, as
// sse-keepalive's server is (a `serve` child, or a --target process of its own): the floor
// then shares no runtime, scheduler or file table with the reader, like the server.
func childFloor(bin string) loadtest.FloorStarter {
	return func(ctx context.Context, wire loadtest.FloorWire, streams int) (*loadtest.RunningFloor, error) {
		js, err := json.Marshal(wire)
		if err != nil {
			return nil, err
		}
		// As many writers as the server has CPUs to run its stream goroutines on (the serve
		// child inherits this process's environment and CPU set).
		writers := runtime.GOMAXPROCS(0)
		c, err := startChild(ctx, "fanout-floor", -1, bin, "fanout-floor", "--streams", strconv.Itoa(streams),
			"--writers", strconv.Itoa(writers), "--wire", string(js))
		if err != nil {
			return nil, err
		}
		return &loadtest.RunningFloor{URL: c.url, Where: "a child process, as the server is", Writers: writers, Stop: c.stop}, nil
	}
}
