package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/bus/natsbus"
	"github.com/fastmcp-go/fastmcp/bus/pgbus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// Names of the buses of the fan-out table.
const (
	nameFanoutHub  = "in-memory hub"
	nameFanoutNATS = "NATS"
	nameFanoutPG   = "PostgreSQL"
)

// envFanoutPostgres names the DSN of the PostgreSQL bus when --bus-postgres is not given: the
// variable scripts/with-postgres.sh sets for the tests.
const envFanoutPostgres = "FASTMCP_TEST_POSTGRES"

// fanoutBus is one bus the fan-out part measures: how a replica connects to it, or why it is
// not measured.
type fanoutBus struct {
	name string
	skip string // why it is not measured, or ""
	// open connects one replica to the bus; nil for the hub, where one Server both publishes
	// and holds the streams.
	open func(ctx context.Context, replica string) (crossBus, error)
}

// fanoutSources says where the buses are: a nats-server binary to start (or a NATS server
// already running, for tests) and a PostgreSQL DSN.
type fanoutSources struct {
	natsServer string // path of nats-server, "" when not on PATH
	natsURL    string // nats://HOST:PORT of a running server; takes precedence
	postgres   string // DSN, "" when none was given
}

// fanoutSourcesFor finds the sources of compare --cluster: nats-server on PATH, and
// --bus-postgres or else $FASTMCP_TEST_POSTGRES.
func fanoutSourcesFor(o *compareOptions) fanoutSources {
	var s fanoutSources
	s.natsServer, _ = exec.LookPath("nats-server")
	s.postgres = o.busPostgres
	if s.postgres == "" {
		s.postgres = os.Getenv(envFanoutPostgres)
	}
	return s
}

// fanoutBuses lists the buses in the table's order, starting nats-server when it is to be
// started; stop ends it (also on error).
func fanoutBuses(ctx context.Context, src fanoutSources) (buses []fanoutBus, stop func(), err error) {
	stop = func() {}
	buses = append(buses, fanoutBus{name: nameFanoutHub})

	natsURL := src.natsURL
	nb := fanoutBus{name: nameFanoutNATS}
	switch {
	case natsURL != "":
	case src.natsServer == "":
		nb.skip = "skipped: nats-server not on PATH (Debian: apt-get install -y nats-server)"
	default:
		n, err := startNATSChild(ctx, src.natsServer)
		if err != nil {
			return nil, stop, err
		}
		stop, natsURL = n.stop, n.url
	}
	if nb.skip == "" {
		nb.open = func(ctx context.Context, replica string) (crossBus, error) {
			b, err := natsbus.Open(ctx, natsbus.Config{URL: natsURL, Name: "fastmcp-bench fan-out " + replica})
			if err != nil {
				return nil, err // not a nil *Bus in a non-nil interface
			}
			return b, nil
		}
	}
	buses = append(buses, nb)

	pb := fanoutBus{name: nameFanoutPG}
	if src.postgres == "" {
		pb.skip = "skipped: no PostgreSQL (--bus-postgres DSN or $" + envFanoutPostgres + "; scripts/with-postgres.sh CMD starts a throwaway one and sets it)"
	} else {
		// A channel of this run's own: another run, or a cluster on the same database, does
		// not mix its events in.
		channel := "fastmcp_bench_fanout_" + strconv.Itoa(os.Getpid())
		pb.open = func(ctx context.Context, _ string) (crossBus, error) {
			b, err := pgbus.Dial(ctx, src.postgres, pgbus.Config{Channel: channel})
			if err != nil {
				return nil, err
			}
			return b, nil
		}
	}
	buses = append(buses, pb)
	return buses, stop, nil
}

// natsChild is a nats-server process on a free loopback port.
type natsChild struct {
	cmd  *exec.Cmd
	url  string
	logs lockedTail
	read chan struct{} // closed when its stderr is read to the end
}

// startNATSChild starts nats-server and returns once it logs that it is ready (10 s at most).
func startNATSChild(ctx context.Context, bin string) (*natsChild, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	n := &natsChild{url: "nats://127.0.0.1:" + strconv.Itoa(port), read: make(chan struct{})}
	n.cmd = exec.Command(bin, "-a", "127.0.0.1", "-p", strconv.Itoa(port))
	stderr, err := n.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	n.cmd.Stdout = &n.logs
	if err := n.cmd.Start(); err != nil {
		return nil, fmt.Errorf("nats-server: %w", err)
	}
	ready := make(chan struct{})
	go func() {
		defer close(n.read)
		signal := ready
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			_, _ = n.logs.Write(append(sc.Bytes(), '\n'))
			if signal != nil && strings.Contains(sc.Text(), "Server is ready") {
				close(signal)
				signal = nil
			}
		}
	}()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-ready:
		return n, nil
	case <-n.read:
		err = errors.New("exited before it was ready")
	case <-timer.C:
		err = errors.New("not ready within 10s")
	case <-ctx.Done():
		err = ctx.Err()
	}
	n.stop()
	return nil, fmt.Errorf("nats-server: %w (it said: %s)", err, n.logs.String())
}

func (n *natsChild) stop() {
	_ = n.cmd.Process.Kill()
	<-n.read
	_ = n.cmd.Wait()
}

// fanoutReplica is one Server of the fan-out part behind a native listener on 127.0.0.1, in
// this process: the demo catalog (so that listen streams are acknowledged tools/list_changed)
// on eb, or on the Server's own hub when eb is nil.
type fanoutReplica struct {
	core   *fastmcp.Server
	srv    *streamable.Server
	served chan error
}

// startFanoutReplica starts a replica that takes up to streams listen streams.
func startFanoutReplica(eb crossBus, streams int) (*fanoutReplica, error) {
	logger := slog.New(slog.DiscardHandler)
	cfg := &fastmcp.Config{Logger: logger}
	if eb != nil {
		cfg.EventBus = eb
	}
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "fastmcp-bench", Version: version()}, cfg)
	if err != nil {
		return nil, err
	}
	fixtures.Demo(core)
	srv, err := streamable.New(core, streamable.ListenerConfig{
		Addr: "127.0.0.1:0", MaxConnections: streams + 64,
		Config: streamable.Config{MaxSubscriptions: streams, Logger: logger},
	})
	if err != nil {
		return nil, err
	}
	if err := srv.Listen(); err != nil {
		return nil, err
	}
	r := &fanoutReplica{core: core, srv: srv, served: make(chan error, 1)}
	go func() { r.served <- srv.Serve() }()
	return r, nil
}

func (r *fanoutReplica) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
	<-r.served
}
