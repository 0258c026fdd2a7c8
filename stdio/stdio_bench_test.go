package stdio

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/pool"
)

// benchMethods are the requests the benchmarks send, by name: the line before the id and
// after it.
var benchMethods = map[string][2]string{
	"tools-call": {`{"jsonrpc":"2.0","id":`, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},` + meta + `}}` + "\n"},
	"discover":   {`{"jsonrpc":"2.0","id":`, `,"method":"server/discover","params":{` + meta + `}}` + "\n"},
	// The initialize-era forms, after benchPreambles' initialize.
	"legacy-tools-call": {`{"jsonrpc":"2.0","id":`, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}` + "\n"},
	"legacy-ping":       {`{"jsonrpc":"2.0","id":`, `,"method":"ping"}` + "\n"},
}

// benchPreambles are the lines a method's connection opens with, each answered before the
// requests start.
var benchPreambles = map[string][]string{
	"legacy-tools-call": {initialize(`"init"`, "2025-11-25", `{}`)},
	"legacy-ping":       {initialize(`"init"`, "2025-11-25", `{}`)},
}

// pipePair returns the two ends of a one-way pipe.
type pipePair func(tb testing.TB) (io.ReadCloser, io.WriteCloser)

func memPipe(testing.TB) (io.ReadCloser, io.WriteCloser) { return newBufPipe() }

func ioPipe(testing.TB) (io.ReadCloser, io.WriteCloser) { return io.Pipe() }

func osPipe(tb testing.TB) (io.ReadCloser, io.WriteCloser) {
	r, w, err := os.Pipe()
	require.NoError(tb, err)
	return r, w
}

// BenchmarkStdio measures requests per second through Serve over an in-memory pipe with a
// 64 KiB buffer, as an OS pipe has (see bufPipe), with a client that keeps inflight requests
// outstanding: it writes whenever fewer are in flight, flushing each burst, and reads the
// responses as they come. The tool is CPU-bound (echo), so the executor has one worker per
// processor (see BenchmarkStdioVariants for the pool's default of 32).
func BenchmarkStdio(b *testing.B) {
	for _, method := range []string{"tools-call", "discover"} {
		for _, inflight := range []int{1, 64} {
			b.Run("method="+method+"/inflight="+strconv.Itoa(inflight), func(b *testing.B) {
				runStdioBench(b, memPipe, method, inflight, runtime.GOMAXPROCS(0))
			})
		}
	}
}

// BenchmarkStdioLegacy measures tools/call in the 2025-11-25 dialect (after one initialize)
// beside the 2026-07-28 form, in one run.
func BenchmarkStdioLegacy(b *testing.B) {
	for _, method := range []string{"tools-call", "legacy-tools-call"} {
		for _, inflight := range []int{1, 64} {
			b.Run("method="+method+"/inflight="+strconv.Itoa(inflight), func(b *testing.B) {
				runStdioBench(b, memPipe, method, inflight, runtime.GOMAXPROCS(0))
			})
		}
	}
}

// BenchmarkStdioOSPipe is BenchmarkStdio over OS pipes (os.Pipe), as a client process
// talks to a server process.
func BenchmarkStdioOSPipe(b *testing.B) {
	for _, inflight := range []int{1, 64} {
		b.Run("method=tools-call/inflight="+strconv.Itoa(inflight), func(b *testing.B) {
			runStdioBench(b, osPipe, "tools-call", inflight, runtime.GOMAXPROCS(0))
		})
	}
}

// BenchmarkStdioVariants measures tools/call with 64 in flight over io.Pipe (which hands
// each write to a read synchronously) and with the executor's default 32 workers.
func BenchmarkStdioVariants(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	for _, v := range []struct {
		pipe    string
		p       pipePair
		workers int
	}{
		{"io", ioPipe, procs},
		{"mem", memPipe, pool.DefaultMaxConcurrency},
		{"os", osPipe, pool.DefaultMaxConcurrency},
	} {
		name := fmt.Sprintf("pipe=%s/workers=%d/method=tools-call/inflight=64", v.pipe, v.workers)
		b.Run(name, func(b *testing.B) { runStdioBench(b, v.p, "tools-call", 64, v.workers) })
	}
}

// TestBenchmarkStdio runs the benchmark bodies briefly on every test run.
func TestBenchmarkStdio(t *testing.T) {
	for _, p := range []pipePair{memPipe, ioPipe, osPipe} {
		n := driveStdio(t, p, "tools-call", 64, 2, 500)
		require.Equal(t, 500, n)
	}
	require.Equal(t, 500, driveStdio(t, memPipe, "legacy-tools-call", 64, 2, 500))
}

func runStdioBench(b *testing.B, pipe pipePair, method string, inflight, workers int) {
	b.ReportAllocs()
	parts := benchMethods[method]
	b.SetBytes(int64(len(parts[0]) + len(parts[1]) + 3))
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	driveStdio(b, pipe, method, inflight, workers, b.N)
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	// CPU time of the whole process (server and client) per request: unlike req/s it does
	// not depend on what else the machine runs.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/req")
}

// driveStdio serves n requests of method with inflight outstanding and returns the number
// of successful responses. The server runs with the default Config but for the number of
// workers of the executor it owns.
func driveStdio(tb testing.TB, pipe pipePair, method string, inflight, workers, n int) int {
	s, _ := newTestServer(tb)
	return driveHandler(tb, transport.For(s), transport.For(s).Decoder(), pipe, method, inflight, workers, n)
}

// driveHandler is driveStdio with the handler h.
func driveHandler(tb testing.TB, h handler, dec *decode.Decoder, pipe pipePair, method string, inflight, workers, n int) int {
	return driveServer(tb, fastmcpServer(h, dec, workers), pipe, method, inflight, n)
}

// fastmcpServer serves h through serve with the default Config but for the number of
// workers of the executor it owns.
func fastmcpServer(h handler, dec *decode.Decoder, workers int) lineServer {
	return func(in io.Reader, out io.Writer) error {
		return serve(context.Background(), h, dec, Config{Input: in, Output: out, Pool: quietPool(pool.Config{MaxConcurrency: workers})})
	}
}

// lineServer serves requests read from in on out until in ends.
type lineServer func(in io.Reader, out io.Writer) error

// driveServer is driveHandler with any server: fastmcp's, or the null server of the floor.
func driveServer(tb testing.TB, srv lineServer, pipe pipePair, method string, inflight, n int) int {
	inR, inW := pipe(tb)
	outR, outW := pipe(tb)
	served := make(chan error, 1)
	go func() {
		served <- srv(inR, outW)
		_ = outW.Close()
	}()
	r := bufio.NewReaderSize(outR, 64<<10)
	for _, line := range benchPreambles[method] {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(tb, err)
		reply, err := r.ReadSlice('\n')
		require.NoError(tb, err)
		require.NotContains(tb, string(reply), `"error":`, "the preamble %s", line)
	}

	// The client's writer sends whenever fewer than inflight requests are outstanding, in
	// bursts, and flushes each burst; its reader counts responses and wakes the writer once
	// per read.
	var received atomic.Int64
	wake := make(chan struct{}, 1)
	sent := make(chan error, 1)
	go func() {
		parts := benchMethods[method]
		w := bufio.NewWriterSize(inW, 64<<10)
		var line []byte
		for i := 0; i < n; {
			room := int(received.Load()) + inflight - i
			if room <= 0 {
				<-wake
				continue
			}
			for ; room > 0 && i < n; room-- {
				line = append(line[:0], parts[0]...)
				line = strconv.AppendInt(line, int64(i), 10)
				line = append(line, parts[1]...)
				_, _ = w.Write(line)
				i++
			}
			if err := w.Flush(); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()

	ok := 0
	for got := 1; got <= n; got++ {
		line, err := r.ReadSlice('\n')
		if err != nil {
			tb.Fatal(err) // not require: its Helper call would dominate the client's cost
		}
		if !bytes.Contains(line, []byte(`"error":`)) {
			ok++
		}
		if r.Buffered() == 0 || got == n {
			received.Store(int64(got))
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}
	require.NoError(tb, <-sent)
	require.NoError(tb, inW.Close())
	require.NoError(tb, <-served)
	_, err := outR.Read(make([]byte, 1))
	require.ErrorIs(tb, err, io.EOF, "nothing after the responses")
	_ = inR.Close()
	_ = outR.Close()
	return ok
}
