package natsbus_test

import (
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/require"
)

// natsServer is a real NATS server in this process, which a test stops and starts again on
// the same port.
type natsServer struct {
	t    *testing.T
	port int
	srv  *server.Server
}

// startNATS starts a server on a free loopback port, shut down when t ends. Its max_payload
// is 2 MiB, above the wire form of the largest event (see the package doc).
func startNATS(t *testing.T) *natsServer {
	n := &natsServer{t: t, port: server.RANDOM_PORT}
	n.start()
	n.port = n.srv.Addr().(*net.TCPAddr).Port
	t.Cleanup(n.stop)
	return n
}

func (n *natsServer) url() string { return n.srv.ClientURL() }

func (n *natsServer) start() {
	srv, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: n.port, NoLog: true, NoSigs: true, MaxPayload: 2 << 20,
	})
	require.NoError(n.t, err)
	go srv.Start()
	require.True(n.t, srv.ReadyForConnections(30*time.Second), "nats server not ready")
	n.srv = srv
}

// stop shuts the server down and waits until it is gone.
func (n *natsServer) stop() {
	if n.srv == nil {
		return
	}
	n.srv.Shutdown()
	n.srv.WaitForShutdown()
	n.srv = nil
}

// startNATSB starts a server for a benchmark, shut down when b ends.
func startNATSB(b *testing.B) *server.Server {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true, MaxPayload: 2 << 20})
	require.NoError(b, err)
	go srv.Start()
	require.True(b, srv.ReadyForConnections(30*time.Second))
	b.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv
}
