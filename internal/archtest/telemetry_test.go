package archtest

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// telemetryDrivers are the module prefixes of the telemetry drivers, which only observe (and
// the binary) may depend on.
var telemetryDrivers = []string{"github.com/prometheus/", "go.opentelemetry.io/"}

// TestTransportsImportNoTelemetry extends TestDependencies to the transports, which it does not
// list: streamable and stdio expose hooks and counters (fastmcp.Observer, Stats, Refusals)
// that package observe reads, and never import a telemetry driver themselves.
func TestTransportsImportNoTelemetry(t *testing.T) {
	for _, pkg := range []string{"streamable", "stdio", "fastmcp", "pool", "decode", "sse"} {
		out, err := exec.Command("go", "list", "-deps", module+"/"+pkg).Output()
		require.NoError(t, err)
		for _, dep := range strings.Fields(string(out)) {
			for _, d := range telemetryDrivers {
				assert.False(t, strings.HasPrefix(dep, d), "%s depends on the telemetry driver %s", pkg, dep)
			}
		}
	}
}
