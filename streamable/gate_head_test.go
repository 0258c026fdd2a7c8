package streamable

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request its gate refuses is answered from its head, on every stack: the body it declares
// is never read nor invited with "100 Continue", and the connection closes after the
// answer, so an unauthenticated client cannot make the server hold a body. The body and read
// timeouts are a minute long: a server that waited for the body would not answer within
// the test's deadline.
func TestGateRefusesFromTheHead(t *testing.T) {
	head := func(addr string, extra ...string) string {
		return "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nX-Gate: refuse\r\n" + strings.Join(extra, "") + "\r\n"
	}
	cases := []struct {
		name  string
		extra []string
	}{
		{"content-length, body withheld", []string{"Content-Length: 1000000\r\n"}},
		{"expect 100-continue", []string{"Content-Length: 1000000\r\n", "Expect: 100-continue\r\n"}},
		{"one byte declared, withheld", []string{"Content-Length: 1\r\n"}},
		{"chunked, no chunk sent", []string{"Transfer-Encoding: chunked\r\n"}},
	}
	for _, run := range gateRuns(bothStacks) {
		t.Run(run.name, func(t *testing.T) {
			var runs atomic.Int64
			addr, _ := startStack(t, run.stack, gateCore(t, &runs), ListenerConfig{
				ReadTimeout: time.Minute,
				Config: Config{
					RequestGate:      testGate,
					RequestGateQuick: run.quick,
					BodyTimeout:      time.Minute,
					Logger:           slog.New(slog.DiscardHandler),
				},
			})
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					c := dialAt(t, addr)
					_, err := io.WriteString(c, head(addr, tc.extra...))
					require.NoError(t, err)
					br := bufio.NewReader(c)
					first, err := br.Peek(12)
					require.NoError(t, err, "answered without the body")
					require.Equal(t, "HTTP/1.1 401", string(first), "no 100 Continue before the gate's answer")
					resp, body := readResponse(t, br)
					assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
					assert.Equal(t, `{"error":"invalid_token"}`, body)
					assert.Equal(t, `Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource"`, resp.Header.Get("WWW-Authenticate"))
					assert.Empty(t, readToClose(t, br), "the connection closes after the answer")
				})
			}
			// A refusal of a request with no body keeps the connection, and the next request
			// on it is served.
			c := dialAt(t, addr)
			br := bufio.NewReader(c)
			_, err := io.WriteString(c, head(addr, "Content-Length: 0\r\n"))
			require.NoError(t, err)
			resp, _ := readResponse(t, br)
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			_, err = io.WriteString(c, postTo(addr, call("2", "whoami", `{}`), callHeaders("whoami")...))
			require.NoError(t, err)
			resp, _ = readResponse(t, br)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, int64(1), runs.Load(), "only the admitted request ran")
		})
	}
}

// An admitted request with "Expect: 100-continue" is invited once its gate passed, and
// served.
func TestGateAdmitsThenContinues(t *testing.T) {
	for _, run := range gateRuns(bothStacks) {
		t.Run(run.name, func(t *testing.T) {
			var runs atomic.Int64
			addr, _ := startStack(t, run.stack, gateCore(t, &runs), ListenerConfig{Config: Config{RequestGate: testGate, RequestGateQuick: run.quick, Logger: slog.New(slog.DiscardHandler)}})
			c := dialAt(t, addr)
			br := bufio.NewReader(c)
			raw := postTo(addr, call("1", "whoami", `{}`), append(callHeaders("whoami"), "X-Gate: alice", "Expect: 100-continue")...)
			i := strings.Index(raw, "\r\n\r\n") + 4
			_, err := io.WriteString(c, raw[:i])
			require.NoError(t, err)
			line, err := br.ReadString('\n')
			require.NoError(t, err)
			require.Equal(t, "HTTP/1.1 100 Continue\r\n", line)
			blank, err := br.ReadString('\n')
			require.NoError(t, err)
			require.Equal(t, "\r\n", blank)
			_, err = io.WriteString(c, raw[i:])
			require.NoError(t, err)
			resp, body := readResponse(t, br)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Contains(t, body, `"text":"alice"`)
			assert.Equal(t, int64(1), runs.Load())
		})
	}
}
