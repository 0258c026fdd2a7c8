package streamable

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Run serves until its context ends, then drains: a request in flight when the context
// ends is answered, and Run returns nil once it is.
func TestRunDrainsWhenTheContextEnds(t *testing.T) {
	core := newCore(t)
	b := newBlocker(t, core)
	s, err := New(core, ListenerConfig{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	require.NoError(t, s.Listen())
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()

	c := dial(t, s)
	_, err = io.WriteString(c, post(s, call("1", "block", `{}`), callHeaders("block")...))
	require.NoError(t, err)
	<-b.started
	cancel()
	require.Eventually(t, func() bool { return !s.Ready() }, 5*time.Second, time.Millisecond, "the drain began")
	close(b.release)
	resp, body := readResponse(t, bufio.NewReader(c))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"text":"released"`)
	require.NoError(t, <-ran)
	_, err = net.Dial("tcp", hostOf(s))
	assert.Error(t, err, "the listener is closed")
}

// Run listens itself when Listen was not called, and SIGTERM drains it as its context ending
// does.
func TestRunDrainsOnSIGTERM(t *testing.T) {
	listening := make(chan struct{})
	testHookRunning = func() { close(listening) }
	t.Cleanup(func() { testHookRunning = nil })
	s, err := New(newCore(t), ListenerConfig{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	ran := make(chan error, 1)
	go func() { ran <- s.Run(context.Background()) }()
	<-listening // SIGTERM is caught from here on
	require.Eventually(t, func() bool { return s.URL() != "" }, 5*time.Second, time.Millisecond)
	resp, _ := exchange(t, s, post(s, call("1", "echo", `{"text":"hi"}`), callHeaders("echo")...))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case err := <-ran:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after SIGTERM")
	}
}

// Run returns the error that keeps it from serving.
func TestRunListenFails(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	s, err := New(newCore(t), ListenerConfig{Addr: taken.Addr().String()})
	require.NoError(t, err)
	assert.ErrorContains(t, s.Run(context.Background()), "address already in use")
}
