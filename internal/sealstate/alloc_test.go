//go:build !race

package sealstate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAllocsSeal(t *testing.T) {
	s := newTestSealer(t)
	dst := make([]byte, 0, 2*MaxTokenBytes)
	allocs := testing.AllocsPerRun(100, func() {
		dst, _ = s.Seal(dst[:0], testState, testNow)
	})
	assert.Zero(t, allocs, "budget: 0 when dst has room")
}

func TestAllocsOpen(t *testing.T) {
	s := newTestSealer(t)
	tok := seal(t, s, testState, testNow)
	bad := append([]byte(nil), tok...)
	bad[len(bad)/2] ^= 1
	tests := []struct {
		name   string
		token  []byte
		budget float64
	}{
		{"ok", tok, 1},       // the decode buffer, which holds the payload
		{"tampered", bad, 1}, // the decode buffer
		{"malformed", []byte("!"), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			allocs := testing.AllocsPerRun(100, func() {
				_, _ = s.Open(tc.token, testState.Binding, testNow)
			})
			assert.Equal(t, tc.budget, allocs) //nolint:testifylint // exact budget
		})
	}
}

func TestAllocsDigest(t *testing.T) {
	args := []byte(`{"env":"prod"}`)
	allocs := testing.AllocsPerRun(100, func() {
		_ = Digest("deploy", args)
	})
	assert.Zero(t, allocs)
}
