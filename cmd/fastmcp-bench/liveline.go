package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// liveLine shows scenario progress: one line rewritten in place on a terminal, plain lines
// about once a second otherwise (a log file or a pipe).
type liveLine struct {
	w   io.Writer
	tty bool

	mu    sync.Mutex
	last  time.Time
	shown bool
}

func newLiveLine(f *os.File) *liveLine {
	st, err := f.Stat()
	return &liveLine{w: f, tty: err == nil && st.Mode()&os.ModeCharDevice != 0}
}

func (l *liveLine) update(p loadtest.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.tty && now.Sub(l.last) < time.Second {
		return
	}
	l.last = now
	line := fmt.Sprintf("%-13s %-9s %s", p.Scenario, p.Target, p.Phase)
	if p.Duration > 0 {
		line += fmt.Sprintf("  %4.1fs/%.0fs", p.Elapsed.Seconds(), p.Duration.Seconds())
	} else if p.Elapsed > 0 {
		line += fmt.Sprintf("  %4.1fs", p.Elapsed.Seconds())
	}
	line += fmt.Sprintf("  %d done  %d errors", p.Done, p.Errors)
	if p.Rate > 0 {
		line += fmt.Sprintf("  %s/s", humanRate(p.Rate))
	}
	if l.tty {
		fmt.Fprintf(l.w, "\r\x1b[K%s", line)
		l.shown = true
		return
	}
	fmt.Fprintln(l.w, line)
}

// printf ends the live line, if shown, and prints a plain line.
func (l *liveLine) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		fmt.Fprint(l.w, "\r\x1b[K")
		l.shown = false
	}
	fmt.Fprintf(l.w, format+"\n", args...)
	l.last = time.Time{}
}

func humanRate(v float64) string {
	if v >= 1e4 {
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
