package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent(),
		// fasthttp's Date goroutine never exits, and a worker pool's cleaner sleeps out its
		// period after Shutdown (the tasks scenario's test serves in process).
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"))
}

// build builds fastmcp-bench into a temporary directory of t.
func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "fastmcp-bench")
	goCmd, err := exec.LookPath("go") // go test puts its own GOROOT/bin first on PATH
	require.NoError(t, err)
	out, err := exec.Command(goCmd, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// TestBinary builds the command once and runs it as a user would.
func TestBinary(t *testing.T) {
	bin := build(t)
	ver := builtVersion(t, bin)
	for _, stack := range []string{"fasthttp", "nethttp", "fasthttp-mount"} {
		t.Run("serve demo/"+stack, func(t *testing.T) { testServeDemo(t, bin, stack, ver) })
		t.Run("drain/"+stack, func(t *testing.T) { testServeDrain(t, bin, stack) })
	}
	t.Run("drain delay", func(t *testing.T) { testServeDrainDelay(t, bin) })
	t.Run("stdio", func(t *testing.T) { testServeStdio(t, bin, ver) })
	t.Run("conformance fixtures and limit flags", func(t *testing.T) { testServeConformance(t, bin) })
	t.Run("dialects", func(t *testing.T) { testServeDialects(t, bin) })
	t.Run("pprof", func(t *testing.T) { testServePprof(t, bin) })
	t.Run("metrics", func(t *testing.T) { testServeMetrics(t, bin) }) // serve_metrics_test.go
	t.Run("usage errors", func(t *testing.T) { testUsageErrors(t, bin) })
	t.Run("read-only tasks store", func(t *testing.T) { testServeReadOnlyTasks(t, bin) }) // serve_tasks_test.go
	t.Run("help", func(t *testing.T) { testHelp(t, bin) })
	t.Run("gateway", func(t *testing.T) { testServeGateway(t, bin) }) // serve_gateway_test.go
	t.Run("gateway multi round-trip", func(t *testing.T) { testServeGatewayMRTR(t, bin, ver) })
	t.Run("gateway parked call across replicas", func(t *testing.T) { testServeGatewayParkedAcrossReplicas(t, bin) })
	t.Run("gateway limits", func(t *testing.T) { testServeGatewayLimits(t, bin) }) // serve_gateway_metrics_test.go
	t.Run("gateway trace", func(t *testing.T) { testServeGatewayTrace(t, bin) })   // serve_gateway_trace_test.go
	t.Run("gateway tasks", func(t *testing.T) { testServeGatewayTasks(t, bin) })   // serve_gateway_tasks_test.go
}

// server is a running `fastmcp-bench serve`.
type server struct {
	cmd    *exec.Cmd
	url    string
	debug  debugURLs // with --pprof
	stdout *bufio.Reader
	stderr *lockedBuffer
	exited chan error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs the binary with serve args and reads the URL from its JSON line.
func startServe(t *testing.T, bin string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	s := &server{cmd: cmd, stdout: bufio.NewReader(stdout), stderr: &lockedBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = s.stderr
	require.NoError(t, cmd.Start())
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.exited
		s.exited <- nil
	})

	lines := make(chan string, 1)
	go func() {
		line, _ := s.stdout.ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		var announced announceLine
		require.NoError(t, json.Unmarshal([]byte(line), &announced), "stdout line %q; stderr:\n%s", line, s.stderr.String())
		want, err := json.Marshal(announced)
		require.NoError(t, err)
		assert.Equal(t, string(want)+"\n", line, "exactly the JSON line")
		assert.Regexp(t, `^https?://127\.0\.0\.1:\d+/mcp$`, announced.URL)
		s.url, s.debug = announced.URL, announced.debugURLs
	case <-time.After(30 * time.Second):
		t.Fatalf("no URL line; stderr:\n%s", s.stderr.String())
	}
	return s
}

// stop sends sig and returns the exit code.
func (s *server) stop(t *testing.T, sig os.Signal) int {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(sig))
	return s.wait(t)
}

func (s *server) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-s.exited:
		s.exited <- err
		if err == nil {
			return 0
		}
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		return ee.ExitCode()
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not exit; stderr:\n%s", s.stderr.String())
	}
	return -1
}

const testMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// post sends one 2026-07-28 request with its mirrored headers.
func post(t *testing.T, url, method, name, body string) (int, string) {
	t.Helper()
	code, reply, err := doPost(url, method, name, body)
	require.NoError(t, err)
	return code, reply
}

// doPost is post for goroutines other than the test's.
func doPost(url, method, name, body string) (int, string, error) {
	return doPostStream(url, method, name, body, nil)
}

// doPostStream is doPost reading the answer line by line, calling onLine (when not nil) with
// each line as it arrives: an event stream's first event tells the caller the handler runs.
func doPostStream(url, method, name, body string, onLine func(string)) (int, string, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var all strings.Builder
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		all.WriteString(line)
		if onLine != nil && line != "" {
			onLine(line)
		}
		if err == io.EOF {
			return resp.StatusCode, all.String(), nil
		}
		if err != nil {
			return resp.StatusCode, all.String(), err
		}
	}
}

// builtVersion asks the binary for its version, and checks it against what the Go toolchain
// stamped into it: a pseudo-version in a git checkout, none with -buildvcs=false.
func builtVersion(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "version").Output()
	require.NoError(t, err)
	ver, ok := strings.CutPrefix(string(out), "fastmcp-bench ")
	require.True(t, ok, "version output %q", out)
	ver = strings.TrimSuffix(ver, "\n")

	goCmd, err := exec.LookPath("go")
	require.NoError(t, err)
	info, err := exec.Command(goCmd, "version", "-m", bin).Output()
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s*mod\s+\S+\s+(\S+)`).FindSubmatch(info)
	require.NotNil(t, m, "no mod line in go version -m:\n%s", info)
	want := string(m[1])
	if want == "(devel)" {
		want = "devel"
	}
	assert.Equal(t, want, ver)

	for _, alias := range []string{"--version", "-version"} {
		out, err := exec.Command(bin, alias).Output()
		require.NoError(t, err)
		assert.Equal(t, "fastmcp-bench "+ver+"\n", string(out), alias)
	}
	return ver
}

// serverInfo is the _meta member of the binary's results.
func serverInfo(ver string) string {
	return `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fastmcp-bench","version":"` + ver + `"}}`
}

func testServeDemo(t *testing.T, bin, stack, ver string) {
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--stack", stack)
	code, body := post(t, s.url, "tools/call", "echo",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"héllo"},`+testMeta+`}}`)
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"héllo"}],`+serverInfo(ver)+`}}`, body)

	// The demo catalog only.
	code, body = post(t, s.url, "tools/call", "test_simple_text",
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text",`+testMeta+`}}`)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"code":-32602`)

	assert.Equal(t, 0, s.stop(t, syscall.SIGTERM))
	rest, _ := io.ReadAll(s.stdout)
	assert.Empty(t, string(rest), "nothing but the URL line on stdout")
	assert.Contains(t, s.stderr.String(), "draining")
}

// testServeDrain: a request in flight when SIGINT arrives is answered before the exit. The
// request asks for progress, so its first progress event proves the handler is running before
// the signal is sent (a fixed pause does not on a loaded machine).
func testServeDrain(t *testing.T, bin, stack string) {
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--fixtures", "conformance,demo", "--stack", stack)
	type answer struct {
		code int
		body string
		err  error
	}
	running := make(chan struct{})
	var once sync.Once
	answered := make(chan answer, 1)
	go func() {
		code, body, err := doPostStream(s.url, "tools/call", "sleep",
			`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"sleep","arguments":{"ms":300},`+
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}`,
			func(line string) {
				if strings.Contains(line, `"notifications/progress"`) {
					once.Do(func() { close(running) })
				}
			})
		answered <- answer{code, body, err}
	}()
	select {
	case <-running:
	case a := <-answered:
		t.Fatalf("answered before any progress: %d %q %v", a.code, a.body, a.err)
	case <-time.After(30 * time.Second):
		t.Fatalf("no progress from the sleep call; stderr:\n%s", s.stderr.String())
	}
	require.NoError(t, s.cmd.Process.Signal(os.Interrupt))
	a := <-answered
	require.NoError(t, a.err)
	assert.Equal(t, http.StatusOK, a.code)
	assert.Contains(t, a.body, `"text":"slept 300 ms"`)
	assert.Equal(t, 0, s.wait(t))
	assert.Contains(t, s.stderr.String(), "draining", "the signal arrived while the call ran")
}

func testServeConformance(t *testing.T, bin string) {
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--fixtures", "conformance", "--max-queue", "0", "--request-timeout", "0",
		"--max-concurrency", "4", "--drain-timeout", "1s", "--allowed-hosts", "127.0.0.1,localhost")
	code, body := post(t, s.url, "tools/call", "test_missing_capability",
		`{"jsonrpc":"2.0","id":401,"method":"tools/call","params":{"name":"test_missing_capability","arguments":{},`+testMeta+`}}`)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":401,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"sampling":{}}}}}`, body)
	assert.Equal(t, 0, s.stop(t, syscall.SIGTERM))
}

const legacyInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// testServeDialects: by default initialize negotiates 2025-11-25 and a legacy request is
// served; --dialects restricts that: without 2025-11-25, initialize counter-offers
// 2025-06-18 and a 2025-11-25 request is refused naming the versions served; with
// 2026-07-28 alone, initialize gets the modern-only answer.
func testServeDialects(t *testing.T, bin string) {
	s := startServe(t, bin, "--addr", "127.0.0.1:0")
	code, head, body := postLegacy(t, s.url, "", legacyInitialize)
	assert.Equal(t, http.StatusOK, code)
	assert.Empty(t, head.Get("Mcp-Session-Id"), "stateless: no session id")
	assert.Contains(t, body, `"result":{"protocolVersion":"2025-11-25",`)
	wirevector.ValidateRevision(t, "initialize", "2025-11-25", "InitializeResult", []byte(body))
	code, _, body = postLegacy(t, s.url, "2025-06-18", `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, body)
	wirevector.ValidateRevision(t, "ping", "2025-06-18", "EmptyResult", []byte(body))
	assert.Equal(t, 0, s.stop(t, syscall.SIGTERM))

	s = startServe(t, bin, "--addr", "127.0.0.1:0", "--dialects", "2026-07-28,2025-06-18")
	code, _, body = postLegacy(t, s.url, "", legacyInitialize)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"result":{"protocolVersion":"2025-06-18",`)
	wirevector.ValidateRevision(t, "initialize", "2025-06-18", "InitializeResult", []byte(body))
	code, _, body = postLegacy(t, s.url, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-06-18"],"requested":"2025-11-25"}}}`, body)
	wirevector.Validate(t, "unsupported version", "UnsupportedProtocolVersionError", []byte(body))
	assert.Equal(t, 0, s.stop(t, syscall.SIGTERM))

	s = startServe(t, bin, "--addr", "127.0.0.1:0", "--dialects", "2026-07-28")
	code, _, body = postLegacy(t, s.url, "", legacyInitialize)
	assert.Equal(t, http.StatusNotFound, code)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}`, body)
	wirevector.Validate(t, "modern-only initialize", "MethodNotFoundError", []byte(body))
	assert.Equal(t, 0, s.stop(t, syscall.SIGTERM))
}

// postLegacy sends one initialize-era request: no _meta, and MCP-Protocol-Version only when
// version is not empty.
func postLegacy(t *testing.T, url, version, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(out)
}

// testServeStdio speaks newline-delimited JSON-RPC with serve --stdio: stdout carries only
// replies; the end of stdin ends the process with 0, and so does SIGTERM.
func testServeStdio(t *testing.T, bin, ver string) {
	cmd := exec.Command(bin, "serve", "--stdio", "--fixtures", "demo")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()
	lines := bufio.NewReader(stdout)
	_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"héllo"},`+testMeta+`}}`+"\n")
	require.NoError(t, err)
	line, err := lines.ReadString('\n')
	require.NoError(t, err, "stderr: %s", stderr.String())
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"héllo"}],`+serverInfo(ver)+`}}`, line)
	require.NoError(t, stdin.Close())
	select {
	case err := <-exited:
		exited <- err
		assert.NoError(t, err, "stderr: %s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve --stdio did not exit at the end of stdin")
	}

	// A signal while stdin is still open, sent once a first reply proves the process is past
	// installing its signal handler (before that, SIGTERM kills it with the default action).
	cmd = exec.Command(bin, "serve", "--stdio")
	stdin, err = cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err = cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+testMeta+`}}`+"\n")
	require.NoError(t, err)
	line, err = bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, line, `"id":2,"result"`)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-done:
		assert.NoError(t, err, "exit status after SIGTERM")
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("serve --stdio did not exit on SIGTERM")
	}
	_ = stdin.Close()
}

// testServePprof: the URL line names the pprof index and the memory reading, and both answer
// as soon as it is printed.
func testServePprof(t *testing.T, bin string) {
	s := startServe(t, bin, "--addr", "127.0.0.1:0", "--pprof", "127.0.0.1:0")
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+/debug/pprof/$`, s.debug.Pprof)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+/debug/memory$`, s.debug.Memory)
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Get(s.debug.Pprof + "goroutine?debug=1")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	resp, err = client.Get(s.debug.Memory)
	require.NoError(t, err)
	var m goMemory
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	resp.Body.Close()
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Positive(t, m.Heap)
	assert.Positive(t, m.Stacks)
	assert.Equal(t, 0, s.stop(t, syscall.SIGTERM))
}

func testUsageErrors(t *testing.T, bin string) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--fixtures", "bogus"}, `unknown catalog "bogus"`},
		{[]string{"serve", "--stack", "bogus"}, `unknown stack "bogus"`},
		{[]string{"serve", "--stack", "nethttp", "--max-body-bytes", "-1", "--addr", "127.0.0.1:0"}, "invalid config"},
		{[]string{"serve", "--stdio", "--max-line-bytes", "-1"}, "invalid config"},
		{[]string{"serve", "--pprof", "0.0.0.0:6060"}, "not a loopback address"},
		{[]string{"serve", "--max-connections", "-1", "--addr", "127.0.0.1:0"}, "invalid config"},
		{[]string{"serve", "--no-such-flag"}, "flag provided but not defined"},
		{[]string{"serve", "--dialects", "2026-07-28,2024-11-05"}, `serve: --dialects: unknown protocol version "2024-11-05" (known: 2026-07-28,2025-11-25,2025-06-18)`},
		{[]string{"serve", "--dialects", ","}, "serve: --dialects: no protocol version given"},
		{[]string{"serve", "--dialects", "2025-06-18, 2025-06-18"}, `serve: --dialects: protocol version "2025-06-18" is listed twice`},
		{[]string{"serve", "--tasks-ttl", "-1s", "--addr", "127.0.0.1:0"}, "serve: --tasks-ttl -1s is negative: give a task's time to live (0 selects the default, 1h0m0s)\n"},
		{[]string{"serve", "--tasks-ttl", "soon"}, `invalid value "soon" for flag -tasks-ttl: parse error`},
		{[]string{"serve", "--state-key-file", "/nonexistent/keys"}, "serve: --state-key-file /nonexistent/keys: open /nonexistent/keys: no such file or directory\n"},
		{[]string{"serve", "--state-key-file", "/dev/null"}, "serve: --state-key-file /dev/null: no key: put one base64 key per line\n"},
		{[]string{"serve", "--drain-delay", "-1s"}, "serve: --drain-delay -1s is negative\n"},
		{[]string{"serve", "--drain-delay", "2s", "--stack", "nethttp"}, "serve: --drain-delay is the native listener's: only with --stack fasthttp, not with --stdio\n"},
		{[]string{"serve", "extra"}, "unexpected arguments"},
		{[]string{"bogus"}, `unknown command "bogus"`},
		// With no arguments the binary runs the default suite (suite.go), not the usage.
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, tc.args...)
			cmd.Stdin = strings.NewReader("")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, 2, ee.ExitCode(), "stderr: %s", stderr.String())
			assert.Contains(t, stderr.String(), tc.want)
			assert.Empty(t, stdout.String())
		})
	}
}

func testHelp(t *testing.T, bin string) {
	out, err := exec.Command(bin, "serve", "-h").CombinedOutput()
	require.NoError(t, err)
	for _, flag := range []string{"-addr", "-stack", "-fixtures", "-dialects", "-pprof", "-stdio", "-max-connections", "-head-timeout",
		"-read-timeout", "-body-timeout", "-max-header-bytes", "-max-body-bytes", "-request-timeout", "-drain-timeout",
		"-max-subscriptions", "-keepalive-interval", "-allowed-origin-hosts", "-allowed-hosts", "-max-concurrency",
		"-max-queue", "-max-line-bytes", "-write-timeout", "-tasks-store", "-tasks-ttl", "-tasks-lease", "-state-key-file"} {
		assert.Regexp(t, `(?m)^  `+flag+`( |$)`, string(out))
	}
	out, err = exec.Command(bin, "help").CombinedOutput()
	require.NoError(t, err)
	assert.Contains(t, string(out), "serve ")
	assert.Contains(t, string(out), "version ")
}
