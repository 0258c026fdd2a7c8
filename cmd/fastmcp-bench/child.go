package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// child is a server process started by the bench: `fastmcp-bench serve` or a peer. It
// prints {"url":…} on its first stdout line once listening (serve --pprof adds the debug
// endpoints to the same line, so they are known as soon as the child is).
type child struct {
	name  string
	cmd   *exec.Cmd
	url   string
	debug debugURLs
	done  chan struct{} // closed when the process exited

	mu   sync.Mutex
	tail []string // its last stderr lines, for error messages
}

// startChild runs argv (under `taskset -c cpu` when cpu >= 0) and waits for its URL line.
func startChild(ctx context.Context, name string, cpu int, argv ...string) (*child, error) {
	if cpu >= 0 {
		argv = append([]string{"taskset", "-c", strconv.Itoa(cpu)}, argv...)
	}
	c := &child{name: name, done: make(chan struct{})}
	c.cmd = exec.Command(argv[0], argv[1:]...)
	c.cmd.Env = os.Environ()
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	go c.readStderr(stderr)
	lines := make(chan announceLine, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var line announceLine
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.URL != "" {
				select {
				case lines <- line:
				default:
				}
			}
		}
	}()
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	select {
	case line := <-lines:
		c.url, c.debug = line.URL, line.debugURLs
		return c, nil
	case <-c.done:
		return nil, fmt.Errorf("%s exited before listening: %s", name, c.lastLines())
	case <-time.After(60 * time.Second):
	case <-ctx.Done():
	}
	c.stop()
	return nil, fmt.Errorf("%s did not announce its URL: %s", name, c.lastLines())
}

func (c *child) readStderr(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		c.mu.Lock()
		c.tail = append(c.tail, line)
		if len(c.tail) > 20 {
			c.tail = c.tail[1:]
		}
		c.mu.Unlock()
	}
}

func (c *child) lastLines() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.tail, "\n")
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// signal sends SIGTERM and waits for the exit, killing the process after timeout.
func (c *child) terminate(timeout time.Duration) error {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return nil
	case <-time.After(timeout):
		_ = c.cmd.Process.Kill()
		<-c.done
		return fmt.Errorf("%s did not exit within %s of SIGTERM; killed", c.name, timeout)
	}
}

// stop ends the process (SIGTERM, then SIGKILL after 10 s).
func (c *child) stop() { _ = c.terminate(10 * time.Second) }

// memory reads the Go heap and stacks in use, after a GC, from the /debug/memory endpoint of
// a `serve --pprof` child.
func (c *child) memory() (goMemory, error) {
	var m goMemory
	if c.debug.Memory == "" {
		return m, fmt.Errorf("%s has no memory endpoint (serve --pprof)", c.name)
	}
	cl := http.Client{Timeout: 30 * time.Second}
	resp, err := cl.Get(c.debug.Memory)
	if err != nil {
		return m, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return m, fmt.Errorf("%s: %s", c.debug.Memory, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		return m, fmt.Errorf("%s: %w", c.debug.Memory, err)
	}
	if m.Heap == 0 {
		return m, fmt.Errorf("%s: no heap figure", c.debug.Memory)
	}
	return m, nil
}

// self is the path of this binary, to start `fastmcp-bench serve` children.
func self() (string, error) { return os.Executable() }

// freePort asks the kernel for a free loopback port, released at once for a child (serve,
// HAProxy) that must be told its port before it listens.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
