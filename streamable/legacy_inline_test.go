package streamable

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logEvent is the notifications/message the chatty tool sends for line.
func logEvent(logger, data string) string {
	return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"` + logger + `","data":` + data + `}}`
}

// A legacy request's log messages (at the server's LegacyLogLevel, info by default) reach
// the client on every stack: on the native listener the request runs inline, which cannot
// write them as they happen, so they are held and the answer is an event stream of them and
// then the reply; the other stacks stream them as they come. Either way the wire is the same.
func TestLegacyLogs(t *testing.T) {
	for _, stack := range bothStacks {
		for _, v := range legacyVersions {
			t.Run(stack+"/"+v, func(t *testing.T) {
				addr, stats := startStack(t, stack, legacyCore(t), ListenerConfig{Config: Config{Logger: discardLogger}})
				s := openPost(t, addr, legacyPost(addr, legacyCall("1", "chatty", `{}`), v))
				require.Equal(t, http.StatusOK, s.resp.StatusCode)
				evs := s.events()
				require.Equal(t, []string{
					logEvent("chatty", `"started"`), logEvent("chatty", `"working"`), logEvent("chatty", `"done"`),
					`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"chatted"}]}}`,
				}, evs)
				for _, ev := range evs[:3] {
					requireLegacyValid(t, v, "LoggingMessageNotification", ev)
				}
				requireLegacyValid(t, v, "CallToolResult", evs[3])
				assert.Zero(t, stats().InlineReruns)
			})
		}
	}
}

// An inline run holds at most 64 notifications (or 256 KiB): past that Log fails with
// ErrHeldNotesFull, which the handler sees, and what was held still goes out before the reply.
func TestLegacyHeldBound(t *testing.T) {
	addr, _ := startStack(t, stackNative, legacyCore(t), ListenerConfig{Config: Config{Logger: discardLogger}})
	s := openPost(t, addr, legacyPost(addr, legacyCall("1", "flood", `{}`), v1125))
	evs := s.events()
	require.Len(t, evs, maxHeldNotes+1)
	for i, ev := range evs[:maxHeldNotes] {
		require.Equal(t, logEvent("flood", strconv.Itoa(i)), ev)
	}
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"64 sent: `+ErrHeldNotesFull.Error()+`"}]}}`, evs[maxHeldNotes])

	// A worker's run streams them as they come: no bound but the request's own.
	addr, _ = startStack(t, stackNative, legacyCore(t), ListenerConfig{DisableInline: true, Config: Config{Logger: discardLogger}})
	evs = openPost(t, addr, legacyPost(addr, legacyCall("2", "flood", `{}`), v1125)).events()
	require.Len(t, evs, 1001)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"none refused"}]}}`, evs[1000])
}

// The held notifications are bounded in bytes too.
func TestHeldNotes(t *testing.T) {
	var h heldNotes
	big := make([]byte, maxHeldBytes/2)
	require.NoError(t, h.add(big))
	require.NoError(t, h.add(big))
	require.ErrorIs(t, h.add([]byte("x")), ErrHeldNotesFull)
	require.Equal(t, 2, h.len())
	h.reset()
	for i := range maxHeldNotes {
		require.NoError(t, h.add([]byte(strconv.Itoa(i))))
	}
	require.ErrorIs(t, h.add([]byte("x")), ErrHeldNotesFull)
	var got []string
	require.NoError(t, h.each(func(b []byte) error { got = append(got, string(b)); return nil }))
	require.Len(t, got, maxHeldNotes)
	assert.Equal(t, "0", got[0])
	assert.Equal(t, "63", got[63])
}
