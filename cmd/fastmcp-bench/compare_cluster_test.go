package main

import (
	"bytes"
	"flag"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseCluster parses a compare command line up to checkClusterFlags, as compareCmd does.
func parseCluster(t *testing.T, args ...string) error {
	t.Helper()
	var o compareOptions
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.flags(fs)
	pos, err := parseInterleaved(fs, args)
	require.NoError(t, err)
	return checkClusterFlags(fs, &o, pos)
}

func TestCompareClusterFlags(t *testing.T) {
	assert.NoError(t, parseCluster(t, "--cluster", "3"))
	assert.NoError(t, parseCluster(t, "throughput", "--cluster", "2", "--quick"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster", "-1"}, "--cluster -1: give the most replicas to measure, 1 to 16"},
		{[]string{"--cluster", "17"}, "--cluster 17: give the most replicas to measure, 1 to 16"},
		{[]string{"latency", "--cluster", "3"}, `--cluster measures throughput only (got ["latency"])`},
		{[]string{"--cluster", "3", "--peers", "--target", "x=http://127.0.0.1:1/mcp"}, "not with --peers, --target"},
		{[]string{"--cluster", "2", "--dialects", "2025-11-25"}, "not with --dialects"},
	} {
		err := parseCluster(t, tc.args...)
		if assert.Error(t, err, tc.args) {
			assert.Contains(t, err.Error(), tc.want, tc.args)
		}
	}
}

func TestClusterTable(t *testing.T) {
	rows := []*clusterRow{
		{name: nameClusterDirect, replicas: 1, samples: []float64{30000, 10000, 20000}},
		{name: nameClusterCeiling, samples: []float64{16000, 16000}},
		{name: replicaName(1), replicas: 1, samples: []float64{8000}},
		{name: replicaName(2), replicas: 2, samples: []float64{12000, 14000}},
		{name: replicaName(3), replicas: 3},
	}
	var b bytes.Buffer
	printClusterTable(&b, rows)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 7, b.String())
	fields := func(i int) []string {
		return strings.Fields(strings.ReplaceAll(lines[i], "haproxy → ", "haproxy→"))
	}
	assert.Equal(t, []string{"endpoint", "replicas", "req/s", "min–max", "of", "ceiling", "vs", "1", "replica"}, fields(1))
	assert.Equal(t, []string{"1", "replica,", "no", "proxy", "1", "20000", "10000–30000", "125%", "2.50×"}, fields(2))
	assert.Equal(t, []string{"haproxy→bare-fasthttp", "-", "16000", "16000–16000", "100%", "2.00×"}, fields(3))
	assert.Equal(t, []string{"haproxy→1", "replica", "1", "8000", "8000–8000", "50%", "1.00×"}, fields(4))
	assert.Equal(t, []string{"haproxy→2", "replicas", "2", "13000", "12000–14000", "81%", "1.62×"}, fields(5))
	assert.Equal(t, []string{"haproxy→3", "replicas", "3", "not", "measured", "-", "-", "-"}, fields(6))
}

func TestHAProxyClusterConfig(t *testing.T) {
	cfg := haproxyClusterConfig([]haproxyBackend{
		{name: nameClusterCeiling, port: 4000, servers: []string{"127.0.0.1:5000"}},
		{name: replicaName(2), port: 4001, servers: []string{"127.0.0.1:6000", "127.0.0.1:6001"}},
	})
	for _, want := range []string{
		"frontend f0\n\tbind 127.0.0.1:4000\n\tdefault_backend b0\n",
		"backend b0\n\tbalance roundrobin\n\tserver s1 127.0.0.1:5000\n",
		"backend b1\n\tbalance roundrobin\n\tserver s1 127.0.0.1:6000\n\tserver s2 127.0.0.1:6001\n",
		"timeout server 60s", // above serve's 15 s keep-alive interval
	} {
		assert.Contains(t, cfg, want)
	}
	for _, affinity := range []string{"cookie", "stick", "hash", "source"} {
		assert.NotContains(t, cfg, affinity)
	}
}

// TestCompareClusterQuick is one short real run, when haproxy is installed.
func TestCompareClusterQuick(t *testing.T) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		t.Skip("haproxy is not on PATH (Debian: apt-get install -y haproxy)")
	}
	bin := build(t)
	code, out, errOut := runBench(t, bin, "compare", "--cluster", "2", "--quick", "--rounds", "1", "--duration", "200ms")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	for _, row := range []string{nameClusterDirect, nameClusterCeiling, replicaName(1), replicaName(2)} {
		assert.Contains(t, out, row)
	}
	assert.NotContains(t, out, "not measured")
	assert.Contains(t, out, "fan-out of one tools/list_changed", "the fan-out part follows the throughput table")
	assert.Regexp(t, `(?m)^\s*in-memory hub\s+1\s+[0-9.]+(ns|µs|ms)\s`, out)
}

// TestCompareClusterNoHAProxy: without haproxy on PATH, one clear line and exit 1.
func TestCompareClusterNoHAProxy(t *testing.T) {
	bin := build(t)
	cmd := exec.Command(bin, "compare", "--cluster", "2", "--quick")
	cmd.Env = []string{"PATH=" + t.TempDir()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Equal(t, "compare --cluster: haproxy is not on PATH (Debian: apt-get install -y haproxy)\n", stderr.String())
}
