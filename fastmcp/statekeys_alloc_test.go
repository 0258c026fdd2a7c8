//go:build !race

package fastmcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAllocsStateRetry pins what a retry that opens its requestState allocates, the state
// opened and the handler run included (26, most of them the test prompt's JSON decoding of its
// answer), so that a replaceable key set (Server.SetStateKeys) adds nothing to it: 26 with
// the one fixed key before.
func TestAllocsStateRetry(t *testing.T) {
	s := keyedServer(t, &Config{StateKeys: [][]byte{stateKey(1), stateKey(2)}})
	msg := []byte(retry(2, sealOn(t, s)))
	allocs := testing.AllocsPerRun(100, func() {
		_ = s.Dispatch(t.Context(), msg, nil)
	})
	assert.LessOrEqual(t, allocs, 26.0)
}
