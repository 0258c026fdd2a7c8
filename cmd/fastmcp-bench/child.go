package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// child is a server process started by the bench: `fastmcp-bench serve` or a peer. It
// prints {"url":…} on its first stdout line once listening.
type child struct {
	name string
	cmd  *exec.Cmd
	url  string
	done chan struct{} // closed when the process exited

	mu    sync.Mutex
	pprof string   // the pprof base URL it logged, if any
	tail  []string // its last stderr lines, for error messages
}

// pprofLine finds the pprof URL that `serve --pprof` logs.
var pprofLine = regexp.MustCompile(`url=(http://[^ ]+/debug/pprof/)`)

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
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var line struct {
				URL string `json:"url"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.URL != "" {
				select {
				case urls <- line.URL:
				default:
				}
			}
		}
	}()
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	select {
	case c.url = <-urls:
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
		if m := pprofLine.FindStringSubmatch(line); m != nil && c.pprof == "" {
			c.pprof = m[1]
		}
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

// goMemory reads the Go runtime's heap and stack in use (after a forced GC) from the pprof
// heap endpoint of a `serve --pprof` child.
func (c *child) goMemory() (uint64, error) {
	c.mu.Lock()
	base := c.pprof
	c.mu.Unlock()
	if base == "" {
		return 0, errors.New("no pprof endpoint")
	}
	cl := http.Client{Timeout: 30 * time.Second}
	resp, err := cl.Get(base + "heap?gc=1&debug=1")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var heap, stack uint64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "# HeapInuse = "); ok {
			heap, _ = strconv.ParseUint(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "# Stack = "); ok { // "# Stack = inuse / sys"
			stack, _ = strconv.ParseUint(strings.Fields(v)[0], 10, 64)
		}
	}
	if heap == 0 {
		return 0, errors.New("no HeapInuse in the heap profile")
	}
	return heap + stack, nil
}

// self is the path of this binary, to start `fastmcp-bench serve` children.
func self() (string, error) { return os.Executable() }
