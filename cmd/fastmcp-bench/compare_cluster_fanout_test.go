package main

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuantile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	assert.Equal(t, time.Duration(5), quantile(ds, 0.5))
	assert.Equal(t, time.Duration(10), quantile(ds, 0.99))
	assert.Equal(t, time.Duration(1), quantile(ds, 0))
	assert.Equal(t, time.Duration(0), quantile(nil, 0.5))
	assert.Equal(t, []time.Duration{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}, ds, "the caller's slice is left as it was")
}

func TestFanoutTable(t *testing.T) {
	rows := []*fanoutRow{
		{bus: nameFanoutHub, streams: 1, perEvent: []time.Duration{4 * time.Microsecond, 6 * time.Microsecond, 5 * time.Microsecond},
			rate: &fanoutRate{delivered: 6_000_000, elapsed: 2 * time.Second}},
		{bus: nameFanoutHub, streams: 100, perEvent: []time.Duration{300 * time.Microsecond, 400 * time.Microsecond}},
		{bus: nameFanoutNATS, streams: 1, perEvent: []time.Duration{90 * time.Microsecond},
			rate: &fanoutRate{delivered: 1_000_000, elapsed: 2 * time.Second, counted: true, dropped: 3, losses: 1}},
		{bus: nameFanoutPG, note: "skipped: no PostgreSQL"},
	}
	var b bytes.Buffer
	printFanoutTable(&b, fanoutQuick, rows)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 9, b.String())
	assert.Contains(t, lines[1], "20 events one")
	assert.Equal(t, []string{"bus", "streams", "per", "event", "p50", "p99", "per", "stream", "events/s", "dropped"}, strings.Fields(lines[4]))
	assert.Equal(t, []string{"in-memory", "hub", "1", "5.00µs", "6.00µs", "5.00µs", "3000000", "-"}, strings.Fields(lines[5]))
	assert.Equal(t, []string{"in-memory", "hub", "100", "300µs", "400µs", "3.00µs", "-", "-"}, strings.Fields(lines[6]))
	assert.Equal(t, []string{"NATS", "1", "90.0µs", "90.0µs", "90.0µs", "500000", "3", "(1", "EventsLost)"}, strings.Fields(lines[7]))
	assert.Equal(t, "PostgreSQL: skipped: no PostgreSQL", lines[8])
}

// TestFanoutBusesSkipped: with no nats-server and no DSN, both buses are listed with the
// line that says how to get one, and nothing is started.
func TestFanoutBusesSkipped(t *testing.T) {
	buses, stop, err := fanoutBuses(t.Context(), fanoutSources{})
	require.NoError(t, err)
	defer stop()
	require.Len(t, buses, 3)
	assert.Equal(t, fanoutBus{name: nameFanoutHub}, buses[0])
	assert.Equal(t, "skipped: nats-server not on PATH (Debian: apt-get install -y nats-server)", buses[1].skip)
	assert.Contains(t, buses[2].skip, "skipped: no PostgreSQL (--bus-postgres DSN or $FASTMCP_TEST_POSTGRES; scripts/with-postgres.sh")
	assert.Nil(t, buses[1].open)
	assert.Nil(t, buses[2].open)
}

// TestClusterFanoutQuick runs the quick fan-out part on the hub and on NATS: Debian's
// nats-server when it is on PATH (started as compare --cluster starts it), else a NATS server
// in this process. Every row has its figures.
func TestClusterFanoutQuick(t *testing.T) {
	var src fanoutSources
	if bin, err := exec.LookPath("nats-server"); err == nil {
		src.natsServer = bin
	} else {
		src.natsURL = startTestNATS(t)
	}
	buses, stop, err := fanoutBuses(t.Context(), src)
	require.NoError(t, err)
	defer stop()
	plan := fanoutQuick
	rows, ok := measureFanout(t.Context(), plan, buses, &liveLine{w: io.Discard})
	require.True(t, ok, "%v", rows)

	measured := map[string][]*fanoutRow{}
	for _, r := range rows {
		if r.note == "" {
			measured[r.bus] = append(measured[r.bus], r)
		}
	}
	for _, name := range []string{nameFanoutHub, nameFanoutNATS} {
		got := measured[name]
		require.Len(t, got, len(plan.streams), name)
		for i, r := range got {
			assert.Equal(t, plan.streams[i], r.streams, name)
			assert.Len(t, r.perEvent, plan.events, name)
			assert.Positive(t, quantile(r.perEvent, 0.5), name)
		}
		require.NotNil(t, got[0].rate, name)
		assert.Positive(t, got[0].rate.perSecond(), name)
		assert.Zero(t, got[0].rate.losses, name)
		assert.Nil(t, got[1].rate, name)
	}
	assert.True(t, measured[nameFanoutNATS][0].rate.counted)
	assert.Zero(t, measured[nameFanoutNATS][0].rate.dropped, "the rate run stays under the outbound buffer")

	var b bytes.Buffer
	printFanoutTable(&b, plan, rows)
	out := b.String()
	t.Log(out)
	assert.Contains(t, out, "PostgreSQL: skipped: no PostgreSQL")
	figures := 0
	for _, line := range strings.Split(out, "\n") {
		for _, name := range []string{nameFanoutHub, nameFanoutNATS} {
			rest, ok := strings.CutPrefix(strings.TrimSpace(line), name+" ")
			if !ok {
				continue
			}
			f := strings.Fields(rest) // streams, p50, p99, per stream, events/s, dropped
			require.Len(t, f, 6, line)
			for _, d := range f[1:4] {
				assert.Regexp(t, `^[1-9][0-9.]*(ns|µs|ms|s)$|^0\.[0-9]+(µs|ms|s)$`, d, line)
			}
			if f[0] == "1" {
				assert.Regexp(t, `^[1-9][0-9]*$`, f[4], line)
			}
			figures++
		}
	}
	assert.Equal(t, 2*len(plan.streams), figures, out)
}

// startTestNATS starts a NATS server in this process on a free loopback port, shut down when
// t ends, and returns its URL.
func startTestNATS(t *testing.T) string {
	srv, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: natsserver.RANDOM_PORT, NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(30*time.Second), "nats server not ready")
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv.ClientURL()
}

// TestNATSChild starts Debian's nats-server as the fan-out part does and stops it.
func TestNATSChild(t *testing.T) {
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not on PATH (Debian: apt-get install -y nats-server)")
	}
	n, err := startNATSChild(t.Context(), bin)
	require.NoError(t, err)
	assert.Regexp(t, `^nats://127\.0\.0\.1:\d+$`, n.url)
	n.stop()
	assert.NotNil(t, n.cmd.ProcessState, "nats-server was waited for")

	_, err = startNATSChild(context.Background(), "/bin/false")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nats-server: exited before it was ready")
}

// TestBusPostgresNeedsCluster: --bus-postgres alone is a usage error, not a flag ignored.
func TestBusPostgresNeedsCluster(t *testing.T) {
	assert.Equal(t, 2, compareCmd(t.Context(), []string{"--bus-postgres", "postgres://127.0.0.1:1/x", "--quick"}))
}
