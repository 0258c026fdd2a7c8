package fastmcp

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidMemo(t *testing.T) {
	calls := 0
	check := func(b []byte) bool { calls++; return validImplementation(b) }
	var v validMemo
	a := []byte(`{"name":"a","version":"1"}`)
	for _, tc := range []struct {
		in    string
		valid bool
		calls int // total check calls so far
	}{
		{string(a), true, 1},
		{string(a), true, 1}, // remembered
		{`{"name":"a","version":1}`, false, 2},
		{`{"name":"a","version":1}`, false, 3}, // refusals are never remembered
		{`{"name":"a","version":"1"} `, true, 4},
		{string(a), true, 4},
		{`{"name":"a"}`, false, 5},
		{`{}`, false, 6},
		{``, false, 7},
	} {
		assert.Equal(t, tc.valid, v.valid([]byte(tc.in), check), tc.in)
		assert.Equal(t, tc.calls, calls, tc.in)
	}

	// The memo holds its own copy: the caller's buffer may be reused.
	var w validMemo
	buf := []byte(`{"name":"b","version":"2"}`)
	assert.True(t, w.valid(buf, validImplementation))
	copy(buf, `{"name":"b","version":2} `)
	assert.False(t, w.valid(buf, validImplementation))

	// Long values are checked every time.
	var l validMemo
	long := []byte(`{"name":"` + strings.Repeat("x", maxMemoBytes) + `","version":"1"}`)
	calls = 0
	l.valid(long, check)
	l.valid(long, check)
	assert.Equal(t, 2, calls)
}

// TestValidMemoTakingTurns: clients that alternate get the check's answers, and the memo
// copies on at most one miss in memoEvery.
func TestValidMemoTakingTurns(t *testing.T) {
	var v validMemo
	clients := [][]byte{[]byte(`{"name":"a","version":"1"}`), []byte(`{"name":"b","version":"1"}`), []byte(`{"name":"c"}`)}
	const requests = 10 * memoEvery
	stores := 0
	var last *[]byte
	for i := range requests {
		c := clients[i%len(clients)]
		assert.Equal(t, validImplementation(c), v.valid(c, validImplementation), string(c))
		if p := v.last.Load(); p != last {
			stores, last = stores+1, p
		}
	}
	assert.LessOrEqual(t, stores, requests/memoEvery+1)
}

func TestValidMemoConcurrent(t *testing.T) {
	var v validMemo
	inputs := [][]byte{
		[]byte(`{"name":"a","version":"1"}`), []byte(`{"name":"b","version":"2"}`),
		[]byte(`{"name":"a","version":1}`), []byte(`{"name":"a","version":"1","icons":[{"src":"x"}]}`),
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				in := inputs[(g+i)%len(inputs)]
				if got, want := v.valid(in, validImplementation), validImplementation(in); got != want {
					t.Errorf("%s: got %v, want %v", in, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	if p := v.last.Load(); p != nil {
		assert.True(t, validImplementation(*p))
		assert.True(t, bytes.Equal(*p, inputs[0]) || bytes.Equal(*p, inputs[1]))
	}
}

// TestClientInfoRemembered: a remembered clientInfo never lets a different one through.
func TestClientInfoRemembered(t *testing.T) {
	s := newTestServer(t, nil)
	request := func(info, caps string) string {
		return dispatch(t, s, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":`+caps+`,"io.modelcontextprotocol/clientInfo":`+info+`}}}`)
	}
	good, caps := `{"name":"c","version":"1"}`, `{"roots":{}}`
	for range 3 {
		assert.Contains(t, request(good, caps), `"result"`)
		assert.Contains(t, request(`{"name":"c","version":1}`, caps), `"error"`)
		assert.Contains(t, request(`{"name":"c"}`, caps), `"error"`)
		assert.Contains(t, request(`"c"`, caps), `"error"`)
		assert.Contains(t, request(`{}`, caps), `"error"`)
		assert.Contains(t, request(good, `{"roots":1}`), `"error"`)
		assert.Contains(t, request(good, `{"roots":{},"sampling":{"tools":true}}`), `"error"`)
	}
}
