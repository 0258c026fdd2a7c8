package loopback

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "127.0.0.1": true, "127.8.9.10": true, "::1": true,
		"localhost.example.com": false, "10.0.0.1": false, "0.0.0.0": false, "::": false, "": false, "[::1]": false,
	} {
		assert.Equal(t, want, Host(host), host)
	}
}

func TestAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:0": true, "[::1]:443": true,
		":8080": false, "0.0.0.0:80": false, "example.com:80": false, "127.0.0.1": false, "": false,
	} {
		assert.Equal(t, want, Addr(addr), addr)
	}
}
