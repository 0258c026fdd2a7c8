package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// wrkScript makes wrk send the same 2026-07-28 echo call as our generator (one fixed id: wrk
// cannot vary it cheaply, and checks no bodies).
const wrkScript = `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "echo"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
`

// wrkLegacyScript is the initialize-era call, as our generator sends it after the handshake.
const wrkLegacyScript = `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}'
`

// wrkCheck is appended to a call script for the checked run: every reply must be a 200
// whose body echoes the text (id 1: wrk sends one fixed id), counted in the thread's
// globals and printed by done as "fastmcp-check: seen N bad M". The timed runs go without
// it, so that they measure wrk's own cost only.
const wrkCheck = `
seen, bad = 0, 0
local threads = {}
function setup(thread) table.insert(threads, thread) end
function response(status, headers, body)
  seen = seen + 1
  if status ~= 200 or not string.find(body, '"id":1,', 1, true) or not string.find(body, '"text":"hello"', 1, true) then
    bad = bad + 1
  end
end
function done(summary, latency, requests)
  local s, b = 0, 0
  for _, t in ipairs(threads) do s, b = s + t:get("seen"), b + t:get("bad") end
  io.write(string.format("fastmcp-check: seen %d bad %d\n", s, b))
end
`

// wrkChecked matches wrkCheck's line.
var wrkChecked = regexp.MustCompile(`(?m)^fastmcp-check: seen (\d+) bad (\d+)$`)

// runWrk runs wrk (one thread, conns connections, the call in dialect) for a warm-up and then for the measured
// duration, returning its requests per second; non-2xx answers and socket errors fail it.
// The replies are checked in a second run of a second, after the timed one (wrkCheck):
// one that is not the echo fails it too.
func runWrk(ctx context.Context, url string, dialect loadtest.Dialect, conns int, warmup, d time.Duration) (float64, error) {
	dir, err := os.MkdirTemp("", "fastmcp-bench-wrk")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "call.lua")
	body := wrkScript
	if dialect == loadtest.DialectLegacy {
		body = wrkLegacyScript
	}
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		return 0, err
	}
	secs := func(d time.Duration) string { return strconv.Itoa(max(1, int(math.Round(d.Seconds())))) + "s" }
	if warmup > 0 {
		if _, err := exec.CommandContext(ctx, "wrk", "-t1", "-c"+strconv.Itoa(conns), "-d"+secs(warmup), "-s", script, url).Output(); err != nil {
			return 0, fmt.Errorf("wrk: %w", err)
		}
	}
	out, err := exec.CommandContext(ctx, "wrk", "-t1", "-c"+strconv.Itoa(conns), "-d"+secs(d), "-s", script, url).Output()
	if err != nil {
		return 0, fmt.Errorf("wrk: %w", err)
	}
	rps, err := parseWrk(out)
	if err != nil {
		return rps, err
	}
	checked := filepath.Join(dir, "check.lua")
	if err := os.WriteFile(checked, []byte(body+wrkCheck), 0o644); err != nil {
		return 0, err
	}
	out, err = exec.CommandContext(ctx, "wrk", "-t1", "-c"+strconv.Itoa(conns), "-d1s", "-s", checked, url).Output()
	if err != nil {
		return 0, fmt.Errorf("wrk (checked run): %w", err)
	}
	return rps, parseWrkCheck(out)
}

// parseWrkCheck reads wrkCheck's line: an error unless replies were seen and none was bad.
func parseWrkCheck(out []byte) error {
	m := wrkChecked.FindSubmatch(out)
	if m == nil {
		return fmt.Errorf("wrk (checked run): no fastmcp-check line in its output:\n%s", out)
	}
	if string(m[1]) == "0" || string(m[2]) != "0" {
		return fmt.Errorf("wrk (checked run): %s of %s replies were not the echo", m[2], m[1])
	}
	return nil
}

// parseWrk reads Requests/sec from wrk's output, failing on non-2xx answers or socket errors.
func parseWrk(out []byte) (float64, error) {
	var rps float64
	var problems []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "Requests/sec:"):
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "Requests/sec:")), 64)
			if err != nil {
				return 0, fmt.Errorf("wrk: %q: %w", line, err)
			}
			rps = v
		case strings.HasPrefix(line, "Non-2xx or 3xx responses:"), strings.HasPrefix(line, "Socket errors:"):
			problems = append(problems, line)
		}
	}
	if rps == 0 {
		return 0, fmt.Errorf("wrk: no Requests/sec in its output:\n%s", out)
	}
	if len(problems) > 0 {
		return rps, errors.New("wrk: " + strings.Join(problems, "; "))
	}
	return rps, nil
}

// profileChild fetches a CPU profile of a `serve --pprof` child for d into file, in the
// background; the returned function waits for it.
func profileChild(c *child, file string, d time.Duration) func() error {
	done := make(chan error, 1)
	go func() {
		base := c.debug.Pprof
		if base == "" {
			done <- errors.New("the server has no pprof endpoint")
			return
		}
		cl := http.Client{Timeout: d + 30*time.Second}
		resp, err := cl.Get(base + "profile?seconds=" + strconv.Itoa(max(1, int(d.Seconds()))))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		f, err := os.Create(file)
		if err != nil {
			done <- err
			return
		}
		if _, err := io.Copy(f, resp.Body); err != nil {
			f.Close()
			done <- err
			return
		}
		done <- f.Close()
	}()
	return func() error { return <-done }
}
