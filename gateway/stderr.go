package gateway

import (
	"bytes"
	"log/slog"
	"sync"
)

// maxStderrLine bounds one logged line of a stdio backend's stderr; the rest of a longer
// line is dropped.
const maxStderrLine = 4 << 10

// stderrLog logs a stdio backend's standard error, one record per line.
type stderrLog struct {
	log *slog.Logger

	mu        sync.Mutex
	line      []byte
	truncated bool
}

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := maxStderrLine - len(w.line); len(chunk) > room {
			chunk, w.truncated = chunk[:room], true
		}
		w.line = append(w.line, chunk...)
		if i < 0 {
			break
		}
		w.log.Info("gateway: backend stderr", "line", string(w.line), "truncated", w.truncated)
		w.line, w.truncated = w.line[:0], false
		p = p[i+1:]
	}
	return n, nil
}
