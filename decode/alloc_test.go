//go:build !race

package decode

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAllocsDecode pins the hot path at zero allocations per message once a pooled Message has
// grown its scratch buffers.
func TestAllocsDecode(t *testing.T) {
	src := toolsCall(t)
	escaped := []byte(req(`{"_meta":{"progressToken":"t\u00e9"},"name":"e\u0063ho","arguments":{"k\u0065y":1}}`))
	var m Message
	for _, in := range [][]byte{src, escaped} {
		allocs := testing.AllocsPerRun(200, func() {
			if err := Decode(&m, in); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, "allocations per Decode")
	}
}

func TestAllocsEncode(t *testing.T) {
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(200, func() {
		buf = AppendResult(buf[:0], []byte(`"id"`), []byte(`{}`))
		buf = AppendString(buf[:0], "café 😀", true)
		buf = AppendError(buf[:0], nil, -32600, "Invalid Request", nil, false)
	})
	assert.Zero(t, allocs)
}

// TestAllocsLookup pins Lookup: a string without escapes is a view (no allocation), one with
// escapes is unescaped into a buffer of its own (one allocation).
func TestAllocsLookup(t *testing.T) {
	obj := []byte(`{"_meta":{},"taskId":"task-0123456789","escaped":"\u0041bc\n"}`)
	for _, c := range []struct {
		key    string
		allocs float64
	}{{"taskId", 0}, {"_meta", 0}, {"missing", 0}, {"escaped", 1}} {
		allocs := testing.AllocsPerRun(200, func() {
			if Lookup(obj, c.key).Type() == TypeNumber {
				t.Fatal("unreachable")
			}
		})
		assert.Equal(t, c.allocs, allocs, "allocations per Lookup(%q)", c.key)
	}
}
