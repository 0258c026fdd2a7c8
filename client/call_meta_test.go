package client

import (
	"bufio"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Calls declaring capabilities of their own each carry theirs, whatever the call before
// declared (the cached _meta is the last call's only when it asked the same), with the tasks
// extension when the call declares it.
func TestCallMetaFollowsEachCall(t *testing.T) {
	reqs := make(chan *fakeReq, 8)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		reqs <- r
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","content":[]}}`)
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern})
	capsOf := func(body []byte) string {
		meta := decode.Lookup(decode.Lookup(body, "params").Raw(), "_meta").Raw()
		return string(decode.Lookup(meta, "io.modelcontextprotocol/clientCapabilities").Raw())
	}
	for _, caps := range []string{`{"elicitation":{}}`, `{"sampling":{}}`, `{"sampling":{}}`, `{"elicitation":{}}`} {
		_, err := c.CallTool(context.Background(), "work", nil, WithInputRound(InputRound{Capabilities: json.RawMessage(caps)}))
		require.NoError(t, err)
		assert.Equal(t, caps, capsOf((<-reqs).body))
	}
	_, _, err := c.CallToolTask(context.Background(), "work", nil, WithInputRound(InputRound{Capabilities: json.RawMessage(`{"elicitation":{}}`)}))
	require.NoError(t, err)
	assert.Equal(t, `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`, capsOf((<-reqs).body))
}
