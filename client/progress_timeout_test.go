package client

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

// progressScript is a stdio server's answer to one call: a progress notification every gap,
// count of them (-1: until the call ends), then the response unless silent.
type progressScript struct {
	gap    time.Duration
	count  int
	silent bool
}

// run plays the script against the request with id, until done closes.
func (p progressScript) run(out io.Writer, id string, done <-chan struct{}) {
	for i := 0; p.count < 0 || i < p.count; i++ {
		select {
		case <-done:
			return
		case <-time.After(p.gap):
		}
		_, _ = io.WriteString(out, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+id+`,"progress":`+strconv.Itoa(i+1)+`}}`+"\n")
	}
	if !p.silent {
		_, _ = io.WriteString(out, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete","content":[]}}`+"\n")
	}
}

// TestProgressResetsTimeout: with ResetTimeoutOnProgress a call made WithProgress outlives
// RequestTimeout while progress keeps coming, until MaxTotalTimeout; without it, progress
// changes nothing. The time is the bubble's: each case takes no real time.
func TestProgressResetsTimeout(t *testing.T) {
	for name, tc := range map[string]struct {
		reset   bool
		script  progressScript
		elapsed time.Duration // when the call ends
		ok      bool
	}{
		"off: cut at RequestTimeout despite progress": {false, progressScript{gap: 25 * time.Second, count: -1}, 30 * time.Second, false},
		"on: outlives RequestTimeout":                 {true, progressScript{gap: 25 * time.Second, count: 4}, 100 * time.Second, true},
		"on: cut at MaxTotalTimeout":                  {true, progressScript{gap: 25 * time.Second, count: -1}, 2 * time.Minute, false},
		"on: cut once progress stops":                 {true, progressScript{gap: 25 * time.Second, count: 2, silent: true}, 80 * time.Second, false},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr, rs := newRawServer(t, stdioOptions{requestTimeout: 30 * time.Second})
				c := stdioClient(t, tr, Config{Era: EraModern, RequestTimeout: 30 * time.Second, MaxTotalTimeout: 2 * time.Minute, ResetTimeoutOnProgress: tc.reset})
				var got []float64
				errs := make(chan error, 1)
				start := time.Now()
				go func() {
					_, err := c.CallTool(context.Background(), "slow", nil, WithProgress(func(p Progress) { got = append(got, p.Progress) }))
					errs <- err
				}()
				req := []byte(rs.read(t))
				id := string(decode.Lookup(req, "id").Raw())
				done := make(chan struct{})
				go tc.script.run(rs.out, id, done)
				err := <-errs
				close(done)
				assert.Equal(t, tc.elapsed, time.Since(start))
				if tc.ok {
					require.NoError(t, err)
					assert.Equal(t, []float64{1, 2, 3, 4}, got)
					return
				}
				require.ErrorIs(t, err, context.DeadlineExceeded)
				// Stdio cannot cancel by closing: the abandoned call is withdrawn.
				assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"cancelled by the client"}}`, rs.read(t))
			})
		})
	}
}

// Over HTTP the socket's deadline is the MaxTotalTimeout of such a call, not RequestTimeout:
// a response stream with progress every 100 ms outlives a 600 ms RequestTimeout (the margin,
// 500 ms, is what a loaded machine may delay one event), and is still cut at MaxTotalTimeout.
func TestProgressResetsTimeoutHTTP(t *testing.T) {
	const gap, request, total = 100 * time.Millisecond, 600 * time.Millisecond, 1500 * time.Millisecond
	stream := func(count int) func(r *fakeReq, w *bufio.Writer) bool {
		return func(r *fakeReq, w *bufio.Writer) bool {
			id := idOf(r.body)
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
			_ = w.Flush()
			tick := time.NewTicker(gap)
			defer tick.Stop()
			for i := 0; count < 0 || i < count; i++ {
				<-tick.C
				w.WriteString(`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + id + `,"progress":` + strconv.Itoa(i) + "}}\n\n")
				if w.Flush() != nil {
					return false
				}
			}
			w.WriteString(`data: {"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","content":[]}}` + "\n\n")
			return false
		}
	}
	cfg := Config{Era: EraModern, RequestTimeout: request, MaxTotalTimeout: total, ResetTimeoutOnProgress: true}
	progress := WithProgress(func(Progress) {})

	c := connect(t, newFake(t, stream(10)).url(), cfg) // 1 s of progress
	start := time.Now()
	_, err := c.CallTool(context.Background(), "slow", nil, progress)
	require.NoError(t, err)
	assert.Greater(t, time.Since(start), request)

	c = connect(t, newFake(t, stream(-1)).url(), cfg)
	start = time.Now()
	_, err = c.CallTool(context.Background(), "slow", nil, progress)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.GreaterOrEqual(t, time.Since(start), total)
}
