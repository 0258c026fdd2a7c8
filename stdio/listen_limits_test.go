package stdio

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// lineHeads is an output that keeps only the first bytes of each line it is written, and
// sends them on heads: a test can follow megabyte lines without holding them.
type lineHeads struct {
	mu    sync.Mutex
	cur   []byte
	heads chan string
}

func (w *lineHeads) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		chunk := rest
		if i >= 0 {
			chunk = rest[:i]
		}
		if room := 200 - len(w.cur); room > 0 {
			w.cur = append(w.cur, chunk[:min(room, len(chunk))]...)
		}
		if i < 0 {
			break
		}
		w.heads <- string(w.cur)
		w.cur = w.cur[:0]
		rest = rest[i+1:]
	}
	return len(p), nil
}

// listenCore is a core that honours resourceSubscriptions.
func listenCore(t testing.TB, cfg *fastmcp.Config) *fastmcp.Server {
	t.Helper()
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, cfg)
	require.NoError(t, err)
	s.AddResource(fastmcp.Resource{URI: "file:///readme", Name: "readme"}, func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
		return []fastmcp.ResourceContents{{URI: "file:///readme", Text: "hi"}}, nil
	})
	return s
}

// serveHeads serves s over a pipe whose output is followed by line heads.
func serveHeads(t *testing.T, s *fastmcp.Server, cfg Config) (in *io.PipeWriter, out *lineHeads) {
	t.Helper()
	inR, inW := io.Pipe()
	out = &lineHeads{heads: make(chan string, 64)}
	cfg.Input, cfg.Output, cfg.Logger = inR, out, discard
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), s, cfg) }()
	t.Cleanup(func() {
		_ = inW.Close()
		assert.NoError(t, <-done)
	})
	return inW, out
}

func (w *lineHeads) next(t *testing.T) string {
	t.Helper()
	select {
	case h := <-w.heads:
		return h
	case <-time.After(30 * time.Second): // a guard against a hang
		t.Fatal("no output line")
		return ""
	}
}

func listenLine(id, filter string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"notifications":` + filter + `,` + meta + "}}\n"
}

func heapInUse() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestListenHoldsNoLine opens streams of 1,000 long URIs (lines of 1.9 MB): once
// acknowledged, a stream keeps its subscription, not its line or decoded message.
func TestListenHoldsNoLine(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 30 MB")
	}
	streams := 16
	if raceEnabled {
		streams = 4
	}
	uris := make([]string, fastmcp.MaxResourceSubscriptions)
	for i := range uris {
		p := "file:///data/" + strconv.Itoa(i) + "/"
		uris[i] = p + strings.Repeat("u", 1900-len(p))
	}
	filter := `{"resourceSubscriptions":["` + strings.Join(uris, `","`) + `"]}`
	in, out := serveHeads(t, listenCore(t, nil), Config{MaxSubscriptions: streams + 1})
	open := func(id int) {
		_, err := io.WriteString(in, listenLine(strconv.Itoa(id), filter))
		require.NoError(t, err)
		require.Contains(t, out.next(t), `"notifications/subscriptions/acknowledged"`)
	}
	open(0) // the URIs' one copy
	before := heapInUse()
	for i := range streams {
		open(i + 1)
	}
	per := (heapInUse() - before) / int64(streams)
	t.Logf("%d B of heap per open listen stream of %d URIs (line %d B)", per, len(uris), len(listenLine("1", filter)))
	assert.Less(t, per, int64(64<<10))
}

// TestListenBudgetLine: past Config.MaxSubscriptionBytes of the core, a listen gets its
// error line and no acknowledgement; the budget returns when the stream is cancelled.
func TestListenBudgetLine(t *testing.T) {
	core := listenCore(t, &fastmcp.Config{MaxSubscriptionBytes: 257}) // one stream "1": 256 + 1
	in, out := serveHeads(t, core, Config{})
	send := func(line string) {
		_, err := io.WriteString(in, line)
		require.NoError(t, err)
	}
	send(listenLine("1", `{"resourcesListChanged":true}`))
	assert.Contains(t, out.next(t), `"notifications/subscriptions/acknowledged"`)
	send(listenLine("2", `{"resourcesListChanged":true}`))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Server subscription capacity exhausted"}}`, out.next(t))
	send(cancel("1") + "\n")
	require.Eventually(t, func() bool { return core.Subscribers() == 0 }, 5*time.Second, time.Millisecond)
	send(listenLine("3", `{"resourcesListChanged":true}`))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"notifications":{"resourcesListChanged":true}}}`, out.next(t))
}
