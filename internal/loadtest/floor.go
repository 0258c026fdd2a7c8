package loadtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
)

// FloorWire is what the write floor sends on each of its streams: the listen response's head
// and acknowledgement, then one list_changed event per round, byte for byte as the server
// under test wrote them on one of its streams (see captureWire).
type FloorWire struct {
	Head  []byte `json:"head"`
	Ack   []byte `json:"ack"`
	Event []byte `json:"event"`
}

// FloorServer is the write floor of the listen fan-out: it holds loopback connections that
// asked subscriptions/listen, answers each with the wire's head and acknowledgement, and on
// every other request (the trigger, the same tools/call the server under test gets) writes the
// wire's event to each held connection, one write per connection. Nothing else: no wake-ups,
// no deadlines, no encoding, no buffer; what the server under test spends beyond this floor
// is its own.
type FloorServer struct {
	wire    FloorWire
	open    []byte // head and acknowledgement, written at once
	max     int
	writers int
	ln      net.Listener

	mu      sync.Mutex
	conns   map[net.Conn]struct{} // every accepted connection, closed by Close
	streams []net.Conn            // the listen streams, in arrival order
	closed  bool
	wg      sync.WaitGroup // request handlers and writers
}

// floorRequestTimeout bounds the read of one request.
const floorRequestTimeout = 10 * time.Second

// NewFloorServer listens on addr (a loopback address such as 127.0.0.1:0) for at most
// maxStreams listen streams (at most MaxStreams), written by writers goroutines
// (GOMAXPROCS if zero). It fails when the process has not the file descriptors for them.
func NewFloorServer(addr string, wire FloorWire, maxStreams, writers int) (*FloorServer, error) {
	if maxStreams <= 0 || maxStreams > MaxStreams {
		return nil, fmt.Errorf("loadtest: the floor holds 1 to %d streams, not %d", MaxStreams, maxStreams)
	}
	if len(wire.Head) == 0 || len(wire.Event) == 0 {
		return nil, errors.New("loadtest: the floor needs the stream's head and event")
	}
	if err := checkFDs(maxStreams, "floor streams"); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &FloorServer{
		wire: wire,
		open: slices.Concat(wire.Head, wire.Ack),
		max:  maxStreams,
		// fastmcp fans out from one goroutine per stream (fastmcp/listen.go stream and flush,
		// each event one sse.Writer flush: one write), woken together, of which GOMAXPROCS run
		// at once. GOMAXPROCS writers, each over its share of the connections, are as parallel
		// as that without the wake-ups: the ratio is then the cost of fastmcp's own work.
		writers: orDefault(writers, runtime.GOMAXPROCS(0)),
		ln:      ln,
		conns:   map[net.Conn]struct{}{},
	}, nil
}

// URL is the floor's endpoint URL (the path is not read).
func (f *FloorServer) URL() string { return "http://" + f.ln.Addr().String() + "/mcp" }

// Writers is the number of goroutines that write a round.
func (f *FloorServer) Writers() int { return f.writers }

// Serve accepts connections until Close; it then returns nil.
func (f *FloorServer) Serve() error {
	for {
		nc, err := f.ln.Accept()
		if err != nil {
			f.mu.Lock()
			closed := f.closed
			f.mu.Unlock()
			if closed {
				return nil
			}
			return err
		}
		if !f.track(nc) {
			_ = nc.Close()
			continue
		}
		f.wg.Go(func() { f.handle(nc) })
	}
}

// track records nc for Close; it refuses connections past the bound (the streams and a few
// triggers) and after Close.
func (f *FloorServer) track(nc net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || len(f.conns) >= f.max+floorSpareConns {
		return false
	}
	f.conns[nc] = struct{}{}
	return true
}

// floorSpareConns are the connections beyond the streams the floor accepts: triggers.
const floorSpareConns = 8

func (f *FloorServer) untrack(nc net.Conn) {
	f.mu.Lock()
	delete(f.conns, nc)
	f.mu.Unlock()
	_ = nc.Close()
}

// handle reads one request: a listen is answered and held, anything else is a trigger.
func (f *FloorServer) handle(nc net.Conn) {
	_ = nc.SetReadDeadline(time.Now().Add(floorRequestTimeout))
	body, err := readFloorRequest(bufio.NewReaderSize(nc, 4096))
	if err != nil {
		f.untrack(nc)
		return
	}
	if bytes.Contains(body, []byte(`"method":"subscriptions/listen"`)) {
		f.hold(nc)
		return
	}
	f.fanout()
	reply := `{"jsonrpc":"2.0","id":` + string(member(body, "id")) + `,"result":{"content":[{"type":"text","text":"floor"}]}}`
	_, _ = io.WriteString(nc, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+
		strconv.Itoa(len(reply))+"\r\nConnection: close\r\n\r\n"+reply)
	f.untrack(nc)
}

// hold answers a listen and keeps its connection for the rounds; no goroutine stays with it.
func (f *FloorServer) hold(nc net.Conn) {
	f.mu.Lock()
	ok := !f.closed && len(f.streams) < f.max
	if ok {
		f.streams = append(f.streams, nc)
	}
	f.mu.Unlock()
	if !ok {
		f.untrack(nc)
		return
	}
	_ = nc.SetReadDeadline(time.Time{})
	if _, err := nc.Write(f.open); err != nil {
		_ = nc.Close() // the reader sees it; Close forgets it
	}
}

// fanout writes the event to every stream held now, from f.writers goroutines, each over a
// contiguous share; it returns once they are started.
func (f *FloorServer) fanout() {
	f.mu.Lock()
	streams := f.streams[:len(f.streams):len(f.streams)]
	f.mu.Unlock()
	if len(streams) == 0 {
		return
	}
	share := (len(streams) + f.writers - 1) / f.writers
	for part := range slices.Chunk(streams, share) {
		f.wg.Go(func() {
			for _, nc := range part {
				_, _ = nc.Write(f.wire.Event) // a stream its reader closed just misses the round
			}
		})
	}
}

// Close stops accepting, closes every connection and waits for the handlers and writers.
func (f *FloorServer) Close() error {
	f.mu.Lock()
	f.closed = true
	conns := make([]net.Conn, 0, len(f.conns))
	for nc := range f.conns {
		conns = append(conns, nc)
	}
	f.mu.Unlock()
	err := f.ln.Close()
	for _, nc := range conns {
		_ = nc.Close()
	}
	f.wg.Wait()
	return err
}

// maxFloorBody bounds a request body the floor reads.
const maxFloorBody = 64 << 10

// readFloorRequest reads one HTTP/1.1 request with a Content-Length body and returns the body.
func readFloorRequest(br *bufio.Reader) ([]byte, error) {
	n := -1
	for first := true; ; first = false {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if first {
				return nil, errors.New("loadtest: floor: empty request line")
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			if n, err = strconv.Atoi(string(bytes.TrimSpace(value))); err != nil {
				return nil, fmt.Errorf("loadtest: floor: Content-Length %q", value)
			}
		}
	}
	if n < 0 || n > maxFloorBody {
		return nil, fmt.Errorf("loadtest: floor: request body of %d bytes", n)
	}
	body := make([]byte, n)
	_, err := io.ReadFull(br, body)
	return body, err
}
