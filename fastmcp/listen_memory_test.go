package fastmcp

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/decode"
)

// TestListenBudget: a listen that would take the bytes held by open streams past
// MaxSubscriptionBytes is refused with -32603 and no acknowledgement (HTTP 503); the bytes
// return when a stream ends, and a URI another stream already listed costs only its place.
func TestListenBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// What the documentation counts: a stream 256 plus its id, each URI it lists 40, each
		// distinct URI its length plus an eighth plus 128 (file:///a: 9 + 1 + 128).
		const (
			first   = 256 + 1 + 2*40 + 2*(9+1+128) // "1" listing file:///a and file:///b
			sharing = 2*(256+1+40) + (9 + 1 + 128) // "2" and "3" listing file:///a
			budget  = sharing
		)
		s := newTestServer(t, &Config{MaxSubscriptionBytes: budget})
		addKinds(s, kindResource|kindTool)
		one := startListen(t, s, listenRequest("1", `{"resourceSubscriptions":["file:///a","file:///b"]}`), 0)
		assert.Equal(t, ackOf("1", `{"resourceSubscriptions":["file:///a","file:///b"]}`), one.next(t))
		assert.Equal(t, int64(first), s.hub.held.Load())

		refused := `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Server subscription capacity exhausted"}}`
		sink := &recordingSink{}
		assert.Equal(t, refused, string(s.Dispatch(context.Background(), []byte(listenRequest("2", `{"toolsListChanged":true}`)), sink)))
		assert.Equal(t, refused, string(s.Dispatch(context.Background(), []byte(listenRequest("2", `{"resourceSubscriptions":["file:///a"]}`)), sink)))
		assert.Empty(t, sink.messages(), "no acknowledgement")
		assert.Equal(t, 1, s.Subscribers())
		assert.True(t, errSubscriptions.Unavailable(), "Streamable HTTP answers it with 503")

		assert.Empty(t, one.gone(t)) // the client goes away: its bytes return
		assert.Zero(t, s.hub.held.Load())
		two := startListen(t, s, listenRequest("2", `{"resourceSubscriptions":["file:///a"]}`), 0)
		assert.Equal(t, ackOf("2", `{"resourceSubscriptions":["file:///a"]}`), two.next(t))
		three := startListen(t, s, listenRequest("3", `{"resourceSubscriptions":["file:///a"]}`), 0)
		assert.Equal(t, ackOf("3", `{"resourceSubscriptions":["file:///a"]}`), three.next(t))
		assert.Equal(t, int64(budget), s.hub.held.Load(), "one index entry for both")
		s.NotifyResourceUpdated("file:///a")
		assert.Equal(t, updatedOf("file:///a", "2"), two.next(t))
		assert.Equal(t, updatedOf("file:///a", "3"), three.next(t))
	})
}

func TestListenBudgetConfig(t *testing.T) {
	s := newTestServer(t, nil)
	assert.Equal(t, int64(DefaultMaxSubscriptionBytes), s.hub.budget)
	_, err := NewServer(Implementation{Name: "test", Version: "1.0.0"}, &Config{MaxSubscriptionBytes: -1})
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// releasingSink is what transports do with a listen request: once the acknowledgement
// arrives, the message and its bytes are released.
type releasingSink struct {
	m     *decode.Message
	body  *[]byte
	acked chan struct{}
	done  bool
}

func (k *releasingSink) Notify(context.Context, []byte) error {
	if !k.done {
		k.done = true
		k.m.Reset()
		*k.body = nil
		k.acked <- struct{}{}
	}
	return nil
}

// openListens serves n listen requests with Handle, filter(i) the filter of the i-th,
// each released at its acknowledgement, and returns the heap the open streams added per
// stream, what the hub counted per stream, and a function that ends them.
func openListens(t *testing.T, s *Server, n int, filter func(i int) string) (heapPer, countedPer int64, end func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	acked := make(chan struct{})
	ended := make(chan struct{}, n)
	held := s.hub.held.Load()
	before := heapInUse()
	for i := range n {
		go func() {
			defer func() { ended <- struct{}{} }()
			body := []byte(listenRequest(strconv.Itoa(1000+i), filter(i)))
			m := new(decode.Message)
			if !assert.NoError(t, s.decoder.Decode(m, body)) {
				acked <- struct{}{}
				return
			}
			s.testHandle(ctx, m, &releasingSink{m: m, body: &body, acked: acked}, nil)
		}()
		<-acked // one at a time: at most one request in memory
	}
	heapPer = (heapInUse() - before) / int64(n)
	countedPer = (s.hub.held.Load() - held) / int64(n)
	return heapPer, countedPer, func() {
		cancel()
		for range n {
			<-ended
		}
	}
}

// heapInUse returns the live heap after two collections (sync.Pool contents survive one).
func heapInUse() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestListenMemoryAccounted opens streams of 1,000 URIs and measures what each holds once
// open: with URIs that other streams list too, a few dozen KiB whatever their length (the
// index keeps one copy); with URIs of its own, their bytes and little more. Either way the
// budget counts at least what the stream holds, and not grossly more.
func TestListenMemoryAccounted(t *testing.T) {
	const uriBytes = 1900
	streams := 8
	if raceEnabled {
		streams = 3
	}
	uri := func(stream, i int) string {
		p := "file:///data/" + strconv.Itoa(stream) + "/" + strconv.Itoa(i) + "/"
		return p + strings.Repeat("u", uriBytes-len(p))
	}
	filterOf := func(stream int) string {
		var b strings.Builder
		b.WriteString(`{"resourceSubscriptions":[`)
		for i := range MaxResourceSubscriptions {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + uri(stream, i) + `"`)
		}
		b.WriteString("]}")
		return b.String()
	}
	shared := filterOf(-1)
	for _, tc := range []struct {
		name   string
		filter func(i int) string
		max    int64 // heap per stream
	}{
		{"URIs other streams list", func(int) string { return shared }, 64 << 10},
		{"URIs of its own", filterOf, MaxResourceSubscriptions*uriBytes*9/8 + 64<<10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, nil)
			addKinds(s, kindResource)
			_, _, endFirst := openListens(t, s, 1, func(int) string { return shared }) // the shared URIs' one copy
			heap, counted, end := openListens(t, s, streams, tc.filter)
			t.Logf("%d B of heap per stream, %d B counted", heap, counted)
			end()
			endFirst()
			assert.Less(t, heap, tc.max)
			assert.GreaterOrEqual(t, counted, heap, "the budget counts what a stream holds")
			assert.Less(t, counted, 2*heap+8<<10, "and not grossly more")
			assert.Zero(t, s.hub.held.Load())
		})
	}
}
