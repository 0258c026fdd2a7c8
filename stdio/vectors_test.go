package stdio

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

// TestVectors runs every wire vector (fastmcp/testdata/vectors, format in internal/wirevector)
// through Serve over in-memory pipes, one connection per file as one client process would
// hold it: each request is one input line, and what the vector expects is read back from the
// output, the request's notifications (progress, log messages, a listen stream's events)
// written before its reply. stdio writes 7-bit output, so the expectations are escaped the
// same way. No file needs an exception: nothing in them depends on HTTP.
//
// For a line that must get nothing back (a notification, a response object), the exchange
// sends a barrier request after it and reads up to the barrier's reply: anything written
// before it for the line is reported as a reply. When the file ends, the input is closed and
// nothing more may be written.
func TestVectors(t *testing.T) {
	steps := 0
	for _, v := range wirevector.Load(t, filepath.Join("..", "fastmcp", "testdata", "vectors")) {
		steps += len(v.Steps)
		t.Run(strings.TrimSuffix(v.File, ".txtar"), func(t *testing.T) {
			s, fx := wirevector.NewFixtureServer(t, v.Setup)
			c := startClient(t, func(cfg Config) error { return Serve(context.Background(), s, cfg) }, Config{})
			wirevector.Run(t, v, vectorExchange(t, c, s, fx), wirevector.Options{ASCII: true})
			rest, err := c.close()
			require.NoError(t, err)
			require.Empty(t, rest, "output after the last reply of %s", v.File)
		})
	}
	t.Logf("%d vector steps through stdio", steps)
}

// vectorExchange sends one vector request on c and collects its reply and notifications,
// telling the fixture of each notification as it is read.
func vectorExchange(t *testing.T, c *client, s *fastmcp.Server, fx *wirevector.Fixture) wirevector.Exchange {
	barriers := 0
	return func(req []byte) ([]byte, [][]byte) {
		t.Helper()
		c.send(string(req))
		var reply []byte
		var notes [][]byte
		read := func() (line string, note bool) {
			t.Helper()
			line = c.rawLine()
			if isNotificationLine(line) {
				notes = append(notes, []byte(line))
				if fx.OnNotify != nil {
					fx.OnNotify(s, len(notes), []byte(line))
				}
				return line, true
			}
			return line, false
		}
		if expectsReply(req) {
			for reply == nil {
				if line, note := read(); !note {
					reply = []byte(line)
				}
			}
			return reply, notes
		}
		barriers++
		barrier := fmt.Sprintf(`"wirevector-barrier-%d"`, barriers)
		c.send(`{"jsonrpc":"2.0","id":` + barrier + `,"method":"wirevector/barrier"}`)
		for {
			line, note := read()
			switch {
			case note:
			case lineID(line) == barrier:
				return reply, notes
			case reply == nil:
				reply = []byte(line)
			default:
				t.Fatalf("a second line answers %s:\n%s", req, line)
			}
		}
	}
}

// rawLine returns the next output line as written.
func (c *client) rawLine() string {
	c.tb.Helper()
	select {
	case l, ok := <-c.lines:
		require.True(c.tb, ok, "output ended")
		return l
	case <-time.After(10 * time.Second): // a guard against a hang, not a wait for an event
		c.tb.Fatal("no output line")
	}
	return ""
}

// expectsReply reports whether a client expects an answer to the line: anything but a
// notification (a method and no id) or a response object (a result or an error, no method).
// A line that is not a JSON object gets an error reply.
func expectsReply(line []byte) bool {
	var env map[string]json.RawMessage
	if json.Unmarshal(line, &env) != nil {
		return true
	}
	_, id := env["id"]
	_, method := env["method"]
	_, result := env["result"]
	_, failed := env["error"]
	switch {
	case method:
		return id
	case result || failed:
		return false
	}
	return true
}

// isNotificationLine reports whether an output line is a notification (it names a method).
func isNotificationLine(line string) bool {
	var env map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &env) != nil {
		return false
	}
	_, ok := env["method"]
	return ok
}

// lineID returns the id literal of an output line ("" when it has none).
func lineID(line string) string {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal([]byte(line), &env)
	return string(env.ID)
}
