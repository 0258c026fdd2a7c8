package stdio

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

// idOf parses the id literal lit the way cancellation reads requestId.
func idOf(t *testing.T, lit string) (requestID, bool) {
	t.Helper()
	var m decode.Message
	require.NoError(t, decode.Decode(&m, []byte(`{"jsonrpc":"2.0","method":"x","params":{"requestId":`+lit+`}}`)))
	var buf []byte
	return parseID(decode.Lookup(m.Params().Raw(), "requestId"), &buf)
}

func TestRequestIDs(t *testing.T) {
	same := [][2]string{{`"a"`, `"\u0061"`}, {`0`, `-0`}, {`9223372036854775807`, `9223372036854775807`}, {`"é"`, `"\u00e9"`}}
	for _, p := range same {
		a, ok := idOf(t, p[0])
		require.True(t, ok)
		b, ok := idOf(t, p[1])
		require.True(t, ok)
		require.Equal(t, a, b, "%s and %s", p[0], p[1])
	}
	one, _ := idOf(t, `1`)
	strOne, _ := idOf(t, `"1"`)
	require.NotEqual(t, one, strOne)
	for _, lit := range []string{`9223372036854775808`, `1.5`, `null`, `true`, `{}`, `[]`} {
		_, ok := idOf(t, lit)
		require.False(t, ok, lit)
	}

	tab := newIDTable()
	j1, j2 := &job{}, &job{}
	tab.put(one, j1)
	tab.put(strOne, j2)
	require.Same(t, j1, tab.get(one))
	require.Same(t, j2, tab.get(strOne))
	tab.remove(one, j2) // not its job: kept
	require.Same(t, j1, tab.get(one))
	tab.remove(one, j1)
	require.Nil(t, tab.get(one))
	n := 0
	tab.each(func(*job) { n++ })
	require.Equal(t, 1, n)
}
