//go:build !race

package loadtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The checker runs on every response: it must not allocate (budget 0).
func TestAllocsCheckResponse(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}}`)
	id, text := []byte("2"), []byte(`"hello"`)
	allocs := testing.AllocsPerRun(1000, func() {
		if checkResponse(body, id, text) != "" {
			t.Fatal("check failed")
		}
	})
	assert.Zero(t, allocs)
}

func BenchmarkCheckResponse(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}}`)
	id, text := []byte("2"), []byte(`"hello"`)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		checkResponse(body, id, text)
	}
}

func BenchmarkKnownReply(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}}`)
	id, text := []byte("2"), []byte(`"hello"`)
	var k known
	b.ReportAllocs()
	for b.Loop() {
		if k.check(body, id, text) != "" {
			b.Fatal("check failed")
		}
	}
}
