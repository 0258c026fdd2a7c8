package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

func init() { startStdio = startStdioProcess }

// stderrTailBytes is how much of a server's standard error is kept to explain its exit.
const stderrTailBytes = 4 << 10

// startStdioProcess starts cfg.Command with cfg.Args, cfg.Env (added to this process's
// environment) and cfg.Dir, and speaks newline-delimited JSON-RPC on its standard input and
// output. The server's standard error is kept (its last 4 KiB) for the error that reports
// its exit, and also copied to cfg.Stderr when that is set.
func startStdioProcess(_ context.Context, cfg *Config) (transport, error) {
	// The process outlives Connect's context: it ends with Close, not with ctx.
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = append(os.Environ(), cfg.Env...)
	cmd.Dir = cfg.Dir
	tail := &tailBuffer{max: stderrTailBytes}
	cmd.Stderr = tail
	if cfg.Stderr != nil {
		cmd.Stderr = io.MultiWriter(cfg.Stderr, tail)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("client: stdio: %w", err)
	}
	// Our own pipe rather than StdoutPipe: Wait closes StdoutPipe as the process exits,
	// which could lose the last lines a server writes before exiting. This one ends with
	// EOF once every writer is gone, after the reader has read everything.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("client: stdio: %w", err)
	}
	cmd.Stdout = w
	err = cmd.Start()
	_ = w.Close() // the child holds its copy
	if err != nil {
		_ = stdout.Close()
		_ = stdin.Close()
		return nil, fmt.Errorf("client: starting %s: %w", cfg.Command, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait() // closes stdout once the process is gone, which ends the reader
		close(exited)
	}()
	exit := func(timeout time.Duration) error {
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-exited:
			return nil
		case <-t.C:
		}
		if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("client: killing the stdio server: %w", err)
		}
		<-exited
		return nil
	}
	reason := func() string {
		select {
		case <-exited:
		case <-time.After(100 * time.Millisecond):
			// Output ended before the process: it closed its stdout and may still run.
			return ""
		}
		s := ""
		if waitErr != nil {
			s = waitErr.Error()
		}
		if e := tail.String(); e != "" {
			s += "; stderr: " + e
		}
		return s
	}
	t, err := newStdioTransport(stdout, stdin, stdioOptions{maxLine: cfg.MaxResponseBytes, requestTimeout: cfg.RequestTimeout, exit: exit, exitReason: reason})
	if err != nil {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		<-exited
		_ = stdout.Close()
		return nil, err
	}
	return t, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
