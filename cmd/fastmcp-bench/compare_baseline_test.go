package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompareBaselineQuick is a short real run of compare --baseline: fastmcp and another
// build of fastmcp-bench (here the same one) in the same rounds, both measured alike.
func TestCompareBaselineQuick(t *testing.T) {
	bin := build(t)
	js := filepath.Join(t.TempDir(), "c.json")
	code, out, errOut := runBench(t, bin, "compare", "--quick", "--baseline", bin, "--dialects", "2026-07-28", "--json", js)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	c := readReport(t, js).Comparison
	require.NotNil(t, c)
	assert.Equal(t, []string{nameFastmcp, nameBaseline}, c.Targets)
	for _, target := range c.Targets {
		assert.Positive(t, c.Medians["ours"][target], target)
		assert.Positive(t, c.CPUMedians[target], target)
	}
}
