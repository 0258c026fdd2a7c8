package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

func TestFanoutFloorCommand(t *testing.T) {
	wire, err := json.Marshal(loadtest.FloorWire{
		Head:  []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"),
		Ack:   []byte("data: {}\n\n"),
		Event: []byte("data: {}\n\n"),
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- fanoutFloor(ctx, []string{"--streams", "10", "--wire", string(wire)}, w, io.Discard)
		_ = w.Close()
	}()
	line, err := bufio.NewReader(out).ReadBytes('\n')
	require.NoError(t, err)
	var a announceLine
	require.NoError(t, json.Unmarshal(line, &a))
	assert.True(t, strings.HasPrefix(a.URL, "http://127.0.0.1:"), a.URL)
	cancel()
	assert.Equal(t, 0, <-code, "SIGTERM (the context) stops it cleanly")

	var stderr strings.Builder
	assert.Equal(t, 2, fanoutFloor(context.Background(), []string{"--wire", "{"}, io.Discard, &stderr))
	assert.Contains(t, stderr.String(), "--wire")
	stderr.Reset()
	assert.Equal(t, 1, fanoutFloor(context.Background(), []string{"--streams", "10", "--wire", "{}"}, io.Discard, &stderr))
	assert.Contains(t, stderr.String(), "needs the stream's head and event")
}
