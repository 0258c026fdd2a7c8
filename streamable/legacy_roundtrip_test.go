package streamable

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// elicitRequest is the elicitation/create the ask tool sends, with the server's id.
func elicitRequest(id, version string) string {
	mode := `"mode":"form",`
	if version == v0618 {
		mode = "" // 2025-06-18 has no modes
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"elicitation/create","params":{` + mode +
		`"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`
}

// A server-to-client request on every stack and in both revisions: the handler's
// InputRequired goes out as an elicitation/create event on the POST's event stream, the
// client POSTs its answer (202, no body), and the final result is the stream's last event.
// On the native listener the request first runs inline, cannot wait there, and is run again
// on a worker (InlineReruns); with DisableInline it goes to a worker at once.
func TestLegacyElicitationRoundTrip(t *testing.T) {
	for _, stack := range bothStacks {
		for _, v := range legacyVersions {
			t.Run(stack+"/"+v, func(t *testing.T) {
				addr, stats := startStack(t, stack, legacyCore(t), ListenerConfig{Config: Config{Logger: discardLogger}})
				s := openPost(t, addr, legacyPost(addr, legacyCall("7", "ask", `{}`), v))
				require.Equal(t, http.StatusOK, s.resp.StatusCode)
				require.True(t, s.isStream(), "the POST's answer turns into an event stream")
				ask, ok := s.next()
				require.True(t, ok)
				requireLegacyValid(t, v, "ElicitRequest", ask)
				id := idOf(t, ask)
				assert.True(t, strings.HasPrefix(id, `"fastmcp-`), "a server-minted string id: %s", id)
				assert.Equal(t, elicitRequest(id, v), ask)

				answer := `{"jsonrpc":"2.0","id":` + id + `,"result":{"action":"accept","content":{"name":"Ada"}}}`
				requireLegacyValid(t, v, "ElicitResult", answer)
				resp, body := exchangeAt(t, addr, legacyPost(addr, answer, v))
				assert.Equal(t, http.StatusAccepted, resp.StatusCode)
				assert.Empty(t, body)

				final, ok := s.next()
				require.True(t, ok)
				assert.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello, Ada (accept)"}]}}`, final)
				requireLegacyValid(t, v, "CallToolResult", final)
				_, more := s.next()
				assert.False(t, more, "the stream ends after the response")
				if stack == stackNative {
					assert.Equal(t, int64(1), stats().InlineReruns)
				}
			})
		}
	}
	t.Run("native/DisableInline", func(t *testing.T) {
		addr, stats := startStack(t, stackNative, legacyCore(t), ListenerConfig{DisableInline: true, Config: Config{Logger: discardLogger}})
		s := openPost(t, addr, legacyPost(addr, legacyCall("7", "ask", `{}`), v1125))
		ask, ok := s.next()
		require.True(t, ok)
		resp, _ := exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":`+idOf(t, ask)+`,"result":{"action":"decline"}}`, v1125))
		assert.Equal(t, http.StatusAccepted, resp.StatusCode)
		final, ok := s.next()
		require.True(t, ok)
		assert.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello,  (decline)"}]}}`, final)
		assert.Zero(t, stats().InlineReruns)
	})
}

// A client that never answers gets the request's deadline: the stream's last event is the
// 504-equivalent timeout error, and the server's request is withdrawn (a late answer is
// accepted and ignored).
func TestLegacyUnanswered(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, stats := startStack(t, stack, legacyCore(t), ListenerConfig{Config: Config{Logger: discardLogger, RequestTimeout: 300 * time.Millisecond}})
			s := openPost(t, addr, legacyPost(addr, legacyCall("8", "ask", `{}`), v1125))
			ask, ok := s.next()
			require.True(t, ok)
			id := idOf(t, ask)
			var last string
			for ev, ok := s.next(); ok; ev, ok = s.next() {
				if last != "" {
					t.Fatalf("an event after the response: %s", ev)
				}
				if isNotification([]byte(ev)) { // the withdrawal's best-effort notice
					assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"The request timed out"}}`, ev)
					requireLegacyValid(t, v1125, "CancelledNotification", ev)
					continue
				}
				last = ev
			}
			assert.Equal(t, `{"jsonrpc":"2.0","id":8,"error":{"code":-32603,"message":"Request execution timed out"}}`, last)
			requireLegacyValid(t, v1125, "", last)
			assert.Equal(t, int64(1), stats().RequestTimeouts)
			resp, body := exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":`+id+`,"result":{"action":"accept","content":{"name":"late"}}}`, v1125))
			assert.Equal(t, http.StatusAccepted, resp.StatusCode)
			assert.Empty(t, body)
		})
	}
}

// An answer for an id the server never issued (or no longer waits for) is accepted with 202
// and changes nothing: the round trip in progress completes with its own answer.
func TestLegacyAnswerUnknownID(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, _ := startStack(t, stack, legacyCore(t), ListenerConfig{Config: Config{Logger: discardLogger}})
			s := openPost(t, addr, legacyPost(addr, legacyCall("9", "ask", `{}`), v1125))
			ask, ok := s.next()
			require.True(t, ok)
			for _, stray := range []string{
				`{"jsonrpc":"2.0","id":"fastmcp-AAAAAAAAAAAAAAAAAAAAAA","result":{"action":"accept","content":{"name":"Mallory"}}}`,
				`{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"name":"Mallory"}}}`,
				`{"jsonrpc":"2.0","id":"fastmcp-AAAAAAAAAAAAAAAAAAAAAA","error":{"code":-32601,"message":"Method not found"}}`,
			} {
				resp, body := exchangeAt(t, addr, legacyPost(addr, stray, v1125))
				assert.Equal(t, http.StatusAccepted, resp.StatusCode, stray)
				assert.Empty(t, body)
			}
			resp, _ := exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":`+idOf(t, ask)+`,"result":{"action":"accept","content":{"name":"Ada"}}}`, v1125))
			assert.Equal(t, http.StatusAccepted, resp.StatusCode)
			final, ok := s.next()
			require.True(t, ok)
			assert.Equal(t, `{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"hello, Ada (accept)"}]}}`, final)
			requireLegacyValid(t, v1125, "CallToolResult", final)
		})
	}
}

// notifications/cancelled in the middle of a round trip: 202, the stream ends with no
// response, and the server's request is withdrawn (a late answer is accepted and ignored).
func TestLegacyCancelMidRoundTrip(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, stats := startStack(t, stack, legacyCore(t), ListenerConfig{Config: Config{Logger: discardLogger}})
			s := openPost(t, addr, legacyPost(addr, legacyCall(`"call-1"`, "ask", `{}`), v1125))
			ask, ok := s.next()
			require.True(t, ok)
			id := idOf(t, ask)
			resp, body := exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"call-1","reason":"user"}}`, v1125))
			assert.Equal(t, http.StatusAccepted, resp.StatusCode)
			assert.Empty(t, body)
			for ev, ok := s.next(); ok; ev, ok = s.next() {
				require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"The request was cancelled"}}`, ev,
					"no response after the cancel: at most the withdrawal's notice")
				requireLegacyValid(t, v1125, "CancelledNotification", ev)
			}
			assert.Equal(t, int64(1), stats().ClientCancels)
			resp, _ = exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":`+id+`,"result":{"action":"accept","content":{"name":"late"}}}`, v1125))
			assert.Equal(t, http.StatusAccepted, resp.StatusCode)
		})
	}
}

// userGate takes the caller's principal from X-Test-User (a test stands for real
// authentication).
func userGate(_ context.Context, r GateRequest) (GateDecision, error) {
	if u := r.Header.Values("X-Test-User"); len(u) == 1 {
		return GateDecision{Identity: &fastmcp.Identity{Principal: string(u[0])}}, nil
	}
	return GateDecision{}, nil
}

// notifications/cancelled withdraws exactly the running legacy request with that id from the
// same principal: a request that opened no stream gets no response at all (its connection
// closes). Another principal's cancel, an unknown id, and an id two requests share (which is
// ambiguous) cancel nothing.
func TestLegacyCancel(t *testing.T) {
	cancelOf := func(addr, id, user string) string {
		return legacyPost(addr, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`, v1125, "X-Test-User: "+user)
	}
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			core := legacyCore(t)
			b := newBlocker(t, core)
			addr, stats := startStack(t, stack, core, ListenerConfig{Config: Config{Logger: discardLogger, RequestGate: userGate}})

			c := dialAt(t, addr)
			_, err := io.WriteString(c, legacyPost(addr, legacyCall(`"c1"`, "block", `{}`), v1125, "X-Test-User: alice"))
			require.NoError(t, err)
			<-b.started
			for _, miss := range []string{cancelOf(addr, `"c1"`, "bob"), cancelOf(addr, `"c2"`, "alice"), cancelOf(addr, `1`, "alice")} {
				resp, body := exchangeAt(t, addr, miss)
				assert.Equal(t, http.StatusAccepted, resp.StatusCode)
				assert.Empty(t, body)
			}
			assert.Zero(t, stats().ClientCancels, "another principal's, or another id")
			resp, _ := exchangeAt(t, addr, cancelOf(addr, `"c1"`, "alice"))
			assert.Equal(t, http.StatusAccepted, resp.StatusCode)
			assert.Equal(t, int64(1), stats().ClientCancels)
			assert.Empty(t, readToClose(t, bufio.NewReader(c)), "no late response: the connection closes unanswered")

			// An integer id, as the SDK clients number their requests.
			c = dialAt(t, addr)
			_, err = io.WriteString(c, legacyPost(addr, legacyCall("42", "block", `{}`), v1125, "X-Test-User: alice"))
			require.NoError(t, err)
			<-b.started
			resp, _ = exchangeAt(t, addr, cancelOf(addr, `42`, "alice"))
			assert.Equal(t, http.StatusAccepted, resp.StatusCode)
			assert.Equal(t, int64(2), stats().ClientCancels)
			assert.Empty(t, readToClose(t, bufio.NewReader(c)))

			// Two requests with one id: ambiguous, neither is cancelled.
			var conns [2]*keepAlive
			for i := range conns {
				conns[i] = newKeepAlive(t, addr)
				_, err := io.WriteString(conns[i].w, legacyPost(addr, legacyCall("5", "block", `{}`), v1125, "X-Test-User: carol"))
				require.NoError(t, err)
				<-b.started
			}
			resp, _ = exchangeAt(t, addr, cancelOf(addr, "5", "carol"))
			assert.Equal(t, http.StatusAccepted, resp.StatusCode)
			assert.Equal(t, int64(2), stats().ClientCancels, "an ambiguous id cancels none")
			close(b.release)
			for _, k := range conns {
				resp, body := readResponse(t, k.br)
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Equal(t, `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"released"}]}}`, body)
				requireLegacyValid(t, v1125, "CallToolResult", body)
			}
		})
	}
}

// An answer counts only from the principal the server's request was made for: another
// caller's answer to the same id is accepted (202) and ignored, the right one completes it.
func TestLegacyAnswerPrincipal(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			addr, _ := startStack(t, stack, legacyCore(t), ListenerConfig{Config: Config{Logger: discardLogger, RequestGate: userGate}})
			s := openPost(t, addr, legacyPost(addr, legacyCall("3", "ask", `{}`), v1125, "X-Test-User: alice"))
			ask, ok := s.next()
			require.True(t, ok)
			answer := func(user, name string) {
				t.Helper()
				resp, body := exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":`+idOf(t, ask)+`,"result":{"action":"accept","content":{"name":"`+name+`"}}}`, v1125, "X-Test-User: "+user))
				assert.Equal(t, http.StatusAccepted, resp.StatusCode)
				assert.Empty(t, body)
			}
			answer("mallory", "Mallory")
			answer("alice", "Alice")
			final, ok := s.next()
			require.True(t, ok)
			assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hello, Alice (accept)"}]}}`, final)
			requireLegacyValid(t, v1125, "CallToolResult", final)
		})
	}
}
