package sse

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedBuffer is a bytes.Buffer safe to read while Run writes to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	err error // returned by Write once set
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return 0, b.err
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.err = err
}

const ka = ": keepalive\n\n"

func ev(data string) string { return "event: message\ndata: " + data + "\n\n" }

// startRun runs w.Run in a goroutine of the bubble; the returned channel
// delivers its result.
func startRun(ctx context.Context, w *Writer, events <-chan []byte) <-chan error {
	res := make(chan error, 1)
	go func() { res <- w.Run(ctx, events) }()
	return res
}

func TestRunKeepAliveWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		w, err := NewWriter(&out, nil, Config{KeepAliveInterval: 10 * time.Second})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		events := make(chan []byte)
		res := startRun(ctx, w, events)

		time.Sleep(10*time.Second - time.Nanosecond)
		synctest.Wait()
		assert.Empty(t, out.String(), "no keepalive before the interval")

		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.Equal(t, ka, out.String())

		time.Sleep(20 * time.Second)
		synctest.Wait()
		assert.Equal(t, ka+ka+ka, out.String())

		// An event restarts the idle interval.
		time.Sleep(5 * time.Second)
		events <- []byte("a")
		time.Sleep(10*time.Second - time.Nanosecond)
		synctest.Wait()
		assert.Equal(t, ka+ka+ka+ev("a"), out.String())
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.Equal(t, ka+ka+ka+ev("a")+ka, out.String())

		cancel()
		assert.ErrorIs(t, <-res, context.Canceled)
	})
}

func TestRunBusyStreamSendsNoKeepAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		w, err := NewWriter(&out, nil, Config{})
		require.NoError(t, err)
		events := make(chan []byte)
		res := startRun(t.Context(), w, events)
		for range 10 {
			time.Sleep(DefaultKeepAliveInterval - time.Second)
			events <- []byte("x")
		}
		close(events)
		require.NoError(t, <-res)
		assert.Equal(t, strings.Repeat(ev("x"), 10), out.String())
	})
}

func TestRunClosedEventsWritesAllAndReturnsNil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		w, err := NewWriter(&out, nil, Config{})
		require.NoError(t, err)
		events := make(chan []byte, 3)
		events <- []byte(`{"method":"notifications/progress"}`)
		events <- []byte("two\nlines")
		events <- []byte(`{"id":1,"result":{}}`)
		close(events)
		require.NoError(t, w.Run(t.Context(), events))
		assert.Equal(t, ev(`{"method":"notifications/progress"}`)+ev("two\ndata: lines")+ev(`{"id":1,"result":{}}`), out.String())
	})
}

func TestRunCancelledWritesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		for range 100 { // select picks at random between ready cases
			var out lockedBuffer
			w, err := NewWriter(&out, nil, Config{})
			require.NoError(t, err)
			events := make(chan []byte, 1)
			events <- []byte("late")
			require.ErrorIs(t, w.Run(ctx, events), context.Canceled)
			require.Empty(t, out.String())
		}
	})
}

func TestRunDeadlineCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		w, err := NewWriter(&out, nil, Config{KeepAliveInterval: time.Second})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(t.Context(), 2500*time.Millisecond)
		defer cancel()
		start := time.Now()
		require.ErrorIs(t, w.Run(ctx, nil), context.DeadlineExceeded)
		assert.Equal(t, 2500*time.Millisecond, time.Since(start))
		assert.Equal(t, ka+ka, out.String())
	})
}

// TestRunDetectsDisconnectOnKeepAlive: a stream with no events learns that
// the client has gone at its next keepalive.
func TestRunDetectsDisconnectOnKeepAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		w, err := NewWriter(&out, nil, Config{KeepAliveInterval: time.Second})
		require.NoError(t, err)
		start := time.Now()
		res := startRun(t.Context(), w, nil)
		time.Sleep(1500 * time.Millisecond)
		errGone := errors.New("client gone")
		out.fail(errGone)
		require.ErrorIs(t, <-res, errGone)
		assert.Equal(t, 2*time.Second, time.Since(start))
		assert.ErrorIs(t, w.Err(), errGone)
	})
}

func TestRunEventWriteError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := lockedBuffer{err: net.ErrClosed}
		w, err := NewWriter(&out, nil, Config{})
		require.NoError(t, err)
		events := make(chan []byte, 1)
		events <- []byte("a")
		assert.ErrorIs(t, w.Run(t.Context(), events), net.ErrClosed)
	})
}

// TestRunStalledClient: a client that stops reading ends Run after
// WriteTimeout, through the connection's write deadline.
func TestRunStalledClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server, client := net.Pipe()
		defer client.Close()
		defer server.Close()
		w, err := NewWriter(server, nil, Config{KeepAliveInterval: 10 * time.Second, WriteTimeout: 3 * time.Second})
		require.NoError(t, err)
		start := time.Now()
		require.ErrorIs(t, w.Run(t.Context(), nil), os.ErrDeadlineExceeded)
		assert.Equal(t, 13*time.Second, time.Since(start))
	})
}
