//go:build unix

package loadtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckFDs(t *testing.T) {
	require.NoError(t, checkFDs(1, "streams"))
	assert.ErrorContains(t, checkFDs(1<<30, "listen streams"), "raise ulimit -n")
}
