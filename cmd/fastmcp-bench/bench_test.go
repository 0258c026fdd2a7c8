package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runBench runs the binary with args and returns its exit code, stdout and stderr.
func runBench(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not finish; stderr:\n%s", args, stderr.String())
	}
	code := 0
	var ee *exec.ExitError
	if err != nil {
		require.ErrorAs(t, err, &ee)
		code = ee.ExitCode()
	}
	return code, stdout.String(), stderr.String()
}

// report reads a --json file.
func readReport(t *testing.T, path string) runReport {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var r runReport
	r.Results = nil
	require.NoError(t, json.Unmarshal(b, &r))
	return r
}

// TestBenchBinary runs the load-testing commands as a user would, with short windows.
func TestBenchBinary(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()

	t.Run("run throughput latency", func(t *testing.T) {
		js, page := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
		code, out, errOut := runBench(t, bin, "run", "throughput", "latency", "--duration", "300ms", "--warmup", "100ms",
			"--connections", "4", "--json", js, "--html", page, "--cpuprofile", filepath.Join(dir, "cpu.prof"))
		require.Equal(t, 0, code, "stderr:\n%s", errOut)
		assert.Contains(t, out, "Every response was checked: no errors.")
		assert.Contains(t, errOut, "throughput    done in")
		assert.Regexp(t, `(?m)^\s+machine\s+other processes \d+%, steal \d+\.\d%, load \d+\.\d\d`, out, "each scenario's machine state")
		assert.Regexp(t, `(?m)^(Machine over the whole run: load .* on \d+ CPUs|Machine state not measured)`, out)
		assert.Regexp(t, `(?m)^  send lag p99\s+how late requests were sent`, out, "the legend explains the table")
		r := readReport(t, js)
		require.Len(t, r.Reports, 2)
		assert.Equal(t, "throughput", r.Reports[0].Scenario)
		assert.Empty(t, r.Reports[0].Errors)
		if _, err := os.Stat("/proc/stat"); err == nil {
			require.NotNil(t, r.Reports[0].Machine, "the JSON has the machine state")
			assert.Positive(t, r.Reports[0].Machine.Ours, "the generator and the embedded endpoint used CPU")
		}
		rps, _ := r.Reports[0].Metric("rps")
		rate, _ := r.Reports[1].Metric("rate")
		assert.InDelta(t, rps/2, rate, 1, "latency runs at half the throughput just measured")
		html, err := os.ReadFile(page)
		require.NoError(t, err)
		assert.Contains(t, string(html), "<svg")
		assert.Contains(t, string(html), "latency — fastmcp")
		assert.FileExists(t, filepath.Join(dir, "cpu.prof"))
	})

	t.Run("run attack and stream scenarios", func(t *testing.T) {
		js := filepath.Join(dir, "s.json")
		code, out, errOut := runBench(t, bin, "run", "conncap", "sse-keepalive", "drain", "progress",
			"--duration", "1500ms", "--streams", "50", "--runs", "2", "--json", js)
		require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
		r := readReport(t, js)
		require.Len(t, r.Reports, 4)
		for _, rep := range r.Reports {
			assert.Empty(t, rep.Errors, rep.Scenario)
		}
		streams, _ := r.Reports[1].Metric("streams")
		assert.Equal(t, 50.0, streams)
		_, ok := r.Reports[1].Metric(metricHeapPerStream)
		assert.True(t, ok, "heap+stacks are read from the child's runtime; notes: %q", r.Reports[1].Notes)
		_, ok = r.Reports[1].Metric(metricRSSPerStream)
		assert.True(t, ok, "RSS is read from the child's /proc status; notes: %q", r.Reports[1].Notes)
		_, ok = r.Reports[1].Metric("median/write floor")
		assert.True(t, ok, "the write floor's rounds ran in a child of their own; notes: %q", r.Reports[1].Notes)
		lost, _ := r.Reports[2].Metric("admitted lost")
		assert.Zero(t, lost)
		assert.Contains(t, out, "goal = 0: ok")
	})

	t.Run("run against a target", func(t *testing.T) {
		s := startServe(t, bin, "--addr", "127.0.0.1:0")
		code, out, errOut := runBench(t, bin, "run", "throughput", "--target", s.url, "--name", "served", "--duration", "200ms", "--warmup", "-1ns")
		require.Equal(t, 0, code, "stderr:\n%s", errOut)
		assert.Contains(t, out, "served")
		assert.Regexp(t, `(?m)^target `+regexp.QuoteMeta(s.url)+`: 2026-07-28 \(server/discover\), \d+ tools; the load calls echo with its string argument "text"$`, errOut,
			"the client's discovery, before the load")

		// A legacy-only server: discovery falls back to initialize, and the load speaks 2025-11-25.
		old := startServe(t, bin, "--addr", "127.0.0.1:0", "--dialects", "2025-11-25")
		code, out, errOut = runBench(t, bin, "run", "throughput", "--target", old.url, "--duration", "200ms", "--warmup", "-1ns")
		require.Equal(t, 0, code, "stderr:\n%s", errOut)
		assert.Contains(t, errOut, ": 2025-11-25 (initialize), ")
		assert.Contains(t, out, "Every response was checked: no errors.")

		code, _, errOut = runBench(t, bin, "run", "throughput", "--target", s.url, "--tool", "no_such_tool", "--duration", "200ms")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "run: target "+s.url+`: it lists no tool "no_such_tool", which the load calls (--tool); it lists: `)
		assert.NotContains(t, errOut, "throughput    ", "no load started")
		closed := closedURL(t)
		code, _, errOut = runBench(t, bin, "run", "throughput", "--target", closed, "--duration", "200ms")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "run: target "+closed+": unreachable or not an MCP server: ")
		assert.NotContains(t, errOut, "throughput    ", "no load started")

		code, _, errOut = runBench(t, bin, "run", "drain", "--target", s.url, "--pid", strconv.Itoa(s.cmd.Process.Pid), "--duration", "200ms")
		require.Equal(t, 0, code, "stderr:\n%s", errOut)
		assert.Equal(t, 0, s.wait(t), "the drain's SIGTERM stopped the server cleanly")
	})

	t.Run("compare", func(t *testing.T) {
		s := startServe(t, bin, "--addr", "127.0.0.1:0")
		code, out, errOut := runBench(t, bin, "compare", "--rounds", "2", "--duration", "200ms", "--warmup", "-1ns", "--connections", "2", "--target", "second="+s.url,
			// 200 streams: their RSS growth (about 4 MiB) stands clear of the few hundred KiB the
			// process's RSS moves by itself (the scavenger returning pages), which 20 did not.
			"--goal-streams", "200", "--goal-runs", "1")
		require.Equal(t, 0, code, "stderr:\n%s", errOut)
		assert.Contains(t, out, "medians (min–max) of 2 interleaved rounds")
		assert.Contains(t, out, "VALUE: median (min–max) of the runs", "the per-target tables are medians too, labelled")
		assert.Regexp(t, `(?m)^throughput\s+second\s+rps\s+`, out, "every target has its table")
		assert.Contains(t, out, "drain admitted lost = 0 (goal = 0: ok)")
		assert.Contains(t, out, "sse-keepalive list_changed to all")
		assert.Regexp(t, `sse-keepalive RSS/stream = [\d.]+ KiB \(goal ≤ 20 KiB: (ok|MISSED)\)`, out)
		assert.Regexp(t, `heap\+stacks/stream\s+[\d.]+ KiB`, out)
		assert.NotContains(t, out, "stream not measured", "compare measures the memory it reports")
		assert.Regexp(t, `second\s+2026-07-28\s+\d+ req/s`, out, "a row per server and protocol revision")
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
	})

	t.Run("usage", func(t *testing.T) {
		code, _, errOut := runBench(t, bin, "run", "bogus")
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, `unknown scenario "bogus"`)
		code, _, errOut = runBench(t, bin, "run", "throughput", "--target", "http://10.1.2.3/mcp", "--duration", "100ms")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "not a loopback address")
		code, _, _ = runBench(t, bin, "compare", "latency", "--generator", "wrk")
		assert.Equal(t, 2, code)
		code, _, errOut = runBench(t, bin, "run", "-h")
		assert.Equal(t, 0, code)
		assert.Contains(t, errOut, "sse-keepalive")
		assert.Contains(t, errOut, "service p99")
		code, _, errOut = runBench(t, bin, "suite", "-h")
		assert.Equal(t, 0, code)
		assert.Contains(t, errOut, "TOO BUSY past 25%")
	})
}

func TestParseWrk(t *testing.T) {
	out := []byte("Running 5s test @ http://127.0.0.1:1/mcp\n  1 threads and 32 connections\nRequests/sec: 153042.17\nTransfer/sec:     40.1MB\n")
	rps, err := parseWrk(out)
	require.NoError(t, err)
	assert.InDelta(t, 153042.17, rps, 0.01)
	_, err = parseWrk(append(out, "  Non-2xx or 3xx responses: 12\n"...))
	assert.ErrorContains(t, err, "Non-2xx")
	_, err = parseWrk([]byte("nothing"))
	assert.Error(t, err)
}
