package sse

import (
	"bytes"
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

// lockedBuffer is a bytes.Buffer safe to read while a keepalive writes to it.
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

// goneSignal returns a gone callback for KeepAlive and the channel it closes.
func goneSignal() (func(), <-chan struct{}) {
	ch := make(chan struct{})
	return func() { close(ch) }, ch
}

func TestKeepAliveWhenSilent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		w, err := NewWriter(&out, nil, Config{KeepAliveInterval: 10 * time.Second})
		require.NoError(t, err)
		stop := w.KeepAlive(func() { t.Error("gone called on a healthy stream") })
		defer stop()

		time.Sleep(10*time.Second - time.Nanosecond)
		synctest.Wait()
		assert.Empty(t, out.String(), "no keepalive before the interval")

		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.Equal(t, ka, out.String())

		time.Sleep(20 * time.Second)
		synctest.Wait()
		assert.Equal(t, ka+ka+ka, out.String())

		// An event restarts the silent interval.
		time.Sleep(5 * time.Second)
		require.NoError(t, w.WriteEvent([]byte("a")))
		time.Sleep(10*time.Second - time.Nanosecond)
		synctest.Wait()
		assert.Equal(t, ka+ka+ka+ev("a"), out.String())
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.Equal(t, ka+ka+ka+ev("a")+ka, out.String())
	})
}

func TestKeepAliveBusyStreamSendsNone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		w, err := NewWriter(&out, nil, Config{})
		require.NoError(t, err)
		stop := w.KeepAlive(func() {})
		for range 10 {
			time.Sleep(DefaultKeepAliveInterval - time.Second)
			require.NoError(t, w.WriteEvent([]byte("x")))
		}
		stop()
		assert.Equal(t, strings.Repeat(ev("x"), 10), out.String())
	})
}

func TestKeepAliveStopWritesNothingMore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		w, err := NewWriter(&out, nil, Config{KeepAliveInterval: time.Second})
		require.NoError(t, err)
		stop := w.KeepAlive(func() {})
		time.Sleep(1500 * time.Millisecond)
		stop()
		stop() // harmless
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Equal(t, ka, out.String())
	})
}

// TestKeepAliveDetectsDisconnect: a stream with no events learns that the
// client has gone at its next keepalive, and gone is called once.
func TestKeepAliveDetectsDisconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		w, err := NewWriter(&out, nil, Config{KeepAliveInterval: time.Second})
		require.NoError(t, err)
		start := time.Now()
		gone, goneCh := goneSignal() // a second call would panic on the closed channel
		defer w.KeepAlive(gone)()
		time.Sleep(1500 * time.Millisecond)
		errGone := errors.New("client gone")
		out.fail(errGone)
		<-goneCh
		assert.Equal(t, 2*time.Second, time.Since(start))
		assert.ErrorIs(t, w.Err(), errGone)
		time.Sleep(time.Minute)
		synctest.Wait()
	})
}

// TestKeepAliveStalledClient: a client that stops reading fails the
// keepalive after WriteTimeout, through the connection's write deadline.
func TestKeepAliveStalledClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server, client := net.Pipe()
		defer client.Close()
		defer server.Close()
		w, err := NewWriter(server, nil, Config{KeepAliveInterval: 10 * time.Second, WriteTimeout: 3 * time.Second})
		require.NoError(t, err)
		start := time.Now()
		gone, goneCh := goneSignal()
		defer w.KeepAlive(gone)()
		<-goneCh
		assert.Equal(t, 13*time.Second, time.Since(start))
		assert.ErrorIs(t, w.Err(), os.ErrDeadlineExceeded)
	})
}

// A stream whose keepalive is started and stopped at once from many
// goroutines: run with -race.
func TestKeepAliveConcurrentStop(t *testing.T) {
	var out lockedBuffer
	w, err := NewWriter(&out, nil, Config{KeepAliveInterval: time.Nanosecond})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 50 {
		stop := w.KeepAlive(func() {})
		wg.Go(stop)
		wg.Go(func() { _ = w.WriteEvent([]byte("e")) })
	}
	wg.Wait()
	assert.NoError(t, w.Err())
}
