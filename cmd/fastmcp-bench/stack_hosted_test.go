package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// A hosted stack (nethttp, fasthttp-mount) keeps the loopback Host check exactly where the
// native listener does: on a loopback --addr, and off beyond it.
func TestHostedConfigHostCheck(t *testing.T) {
	for addr, off := range map[string]bool{"": false, "127.0.0.1:0": false, "localhost:8080": false, "[::1]:80": false, "0.0.0.0:8080": true, ":8080": true, "10.1.2.3:80": true} {
		c := hostedConfig(streamable.ListenerConfig{Addr: addr, Config: streamable.Config{Path: "/x"}})
		assert.Equal(t, off, c.DisableHostCheck, addr)
		assert.Equal(t, "/x", c.Path, "the endpoint's fields are kept")
	}
}
