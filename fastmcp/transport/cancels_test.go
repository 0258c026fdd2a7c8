package transport_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// request is a registered request of the tests: its Running, and how often it was withdrawn.
type request struct {
	transport.Running
	withdrawn int
}

func (r *request) Withdraw() { r.withdrawn++ }

// idOf is the decoded requestId of a literal.
func idOf(t *testing.T, literal string) decode.Value {
	t.Helper()
	v := decode.Lookup([]byte(`{"requestId":`+literal+`}`), "requestId")
	require.True(t, v.Present(), literal)
	return v
}

// The registry finds a request by scope and id literal, refuses an ambiguous key, unlinks a
// request from anywhere in its list, and names nothing by an id that is not a string or an
// integer.
func TestCancels(t *testing.T) {
	var c transport.Cancels
	add := func(scope, id string) *request {
		r := &request{}
		c.Add(&r.Running, scope, []byte(id), r)
		return r
	}
	a := add("alice", `"x"`)
	assert.True(t, c.Cancel("alice", idOf(t, `"x"`)))
	assert.Equal(t, 1, a.withdrawn)
	assert.False(t, c.Cancel("bob", idOf(t, `"x"`)), "another scope")
	assert.False(t, c.Cancel("alice", idOf(t, `"\u0078"`)), "another literal")
	assert.False(t, c.Cancel("", idOf(t, `"x"`)))

	// Many in flight under one key, whichever lists they landed in: ambiguous.
	more := []*request{add("alice", `"x"`), add("alice", `"x"`)}
	assert.False(t, c.Cancel("alice", idOf(t, `"x"`)), "ambiguous: three in flight")
	c.Remove(&more[0].Running)
	assert.False(t, c.Cancel("alice", idOf(t, `"x"`)), "still two")
	c.Remove(&more[1].Running)
	assert.True(t, c.Cancel("alice", idOf(t, `"x"`)))
	assert.Equal(t, 2, a.withdrawn)
	c.Remove(&a.Running)
	assert.False(t, c.Cancel("alice", idOf(t, `"x"`)))
	c.Remove(&a.Running) // twice is harmless

	// Forty requests spread over every list, and each one is found.
	var all []*request
	for i := range 40 {
		all = append(all, add("p", strconv.Itoa(100+i)))
	}
	for i, r := range all {
		assert.True(t, c.Cancel("p", idOf(t, strconv.Itoa(100+i))))
		assert.Equal(t, 1, r.withdrawn, i)
		c.Remove(&r.Running)
	}
	n := add("", "7")
	assert.True(t, c.Cancel("", idOf(t, "7")))
	assert.Equal(t, 1, n.withdrawn)
	for _, bad := range []string{"7.5", "null", "true", "{}", "[]"} {
		assert.False(t, c.Cancel("", idOf(t, bad)), bad)
	}
	assert.Zero(t, n.withdrawn-1, "a malformed id names nothing")
}

// Registering and unregistering a request allocates nothing.
func TestCancelsAllocs(t *testing.T) {
	var c transport.Cancels
	r := &request{}
	id := []byte("1")
	c.Add(&r.Running, "alice", id, r)
	c.Remove(&r.Running)
	assert.Zero(t, testing.AllocsPerRun(1000, func() {
		c.Add(&r.Running, "alice", id, r)
		c.Remove(&r.Running)
	}))
}
