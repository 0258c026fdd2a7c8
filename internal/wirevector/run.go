package wirevector

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// Exchange sends one request and returns the reply (nil for none) and the notifications the
// request produced, in order: a transport's exchange of the request bytes alone, which its
// StepExchange wraps.
type Exchange func(req []byte) (reply []byte, notes [][]byte)

// StepExchange is an Exchange that also gets the step, for what a transport carries beside
// the message: st.Version, when st.HasVersion, is the protocol version (over HTTP the
// MCP-Protocol-Version header; over stdio the version the connection negotiated, which a
// connection at another version, or at none, reaches with an initialize of its own first).
// RunSteps calls it once per step, in the order of the file.
type StepExchange func(st Step, req []byte) (reply []byte, notes [][]byte)

// Options adapt RunSteps to a transport.
type Options struct {
	// ASCII says the transport writes 7-bit output (stdio escapes every non-ASCII character
	// as \uXXXX): the expected replies and notifications are escaped the same way before
	// they are compared.
	ASCII bool
	// Replace gives, by the line of a step's request marker, the reply a transport sends
	// instead of the vector's, for the few requests it answers itself by design (an HTTP
	// transport refuses some before the core sees them). The step is still sent, and its
	// reply is compared with the replacement and validated against the replacement's
	// definition; its notifications are the vector's. A line that is not a step's fails the
	// run, so the list cannot outlive the vectors.
	Replace map[int]Replacement
}

// Replacement is a transport's own reply to one step, and why it differs from the core's.
type Replacement struct {
	Reply    string // one line, as in a reply section (placeholders allowed)
	ReplyDef string // the schema definition it must match
	Why      string
}

// RunSteps runs the steps of v through exchange, which carries each step's version (see
// [StepExchange]), comparing every reply and notification with the vector byte for byte and
// validating each against its schema definition.
func RunSteps(t *testing.T, v *Vector, exchange StepExchange, opts Options) {
	t.Helper()
	vars := map[string]string{}
	expect := func(line string) string {
		if opts.ASCII {
			return string(decode.AppendASCII(nil, []byte(line)))
		}
		return line
	}
	for line := range opts.Replace {
		if !slices.ContainsFunc(v.Steps, func(st Step) bool { return st.Line == line }) {
			t.Fatalf("%s:%d: a replacement for a line that is not a step's request", v.File, line)
		}
	}
	for _, st := range v.Steps {
		where := fmt.Sprintf("%s:%d", v.File, st.Line)
		if r, ok := opts.Replace[st.Line]; ok {
			t.Logf("%s: the vector's reply is replaced here: %s", where, r.Why)
			st.NoReply, st.Reply, st.ReplyDef = false, r.Reply, r.ReplyDef
		}
		req := substitute(t, where, st.Request, vars)
		if st.RequestDef != "" {
			ValidateRevision(t, where+" (request)", st.Schema, st.RequestDef, req)
		}
		reply, notes := exchange(st, req)
		if st.NoReply {
			if reply != nil {
				t.Fatalf("%s: want no reply, got\n%s", where, reply)
			}
		} else {
			if want := expect(st.Reply); !matchExpected(want, reply, vars) {
				t.Fatalf("%s: reply differs\nwant: %s\n got: %s\n%s", where, want, reply, firstDiff(want, reply))
			}
			ValidateRevision(t, where+" (reply)", st.Schema, st.ReplyDef, reply)
		}
		if len(notes) != len(st.Notes) {
			t.Fatalf("%s: want %d notifications, got %d:\n%s", where, len(st.Notes), len(notes), bytes.Join(notes, []byte("\n")))
		}
		for i, n := range notes {
			if want := expect(st.Notes[i]); !matchExpected(want, n, vars) {
				t.Fatalf("%s: notification %d differs\nwant: %s\n got: %s\n%s", where, i+1, want, n, firstDiff(want, n))
			}
			ValidateRevision(t, fmt.Sprintf("%s (notification %d)", where, i+1), st.Schema, st.NoteDefs[i], n)
		}
	}
}

// CoreSteps serves each step as a stateless HTTP transport does, without HTTP: it decodes
// the request, classifies it with the step's version (transport.Endpoint.Classify; a
// refusal is the reply), and serves it with the state of a client the transport knows
// nothing of (transport.Endpoint.Stateless: capabilities unknown, the log level
// Config.LegacyLogLevel, no event delivery). A transport that keeps a connection's state
// (stdio) gets other initialize and log replies where that state shows, which its own run
// replaces.
func CoreSteps(s *fastmcp.Server, fx *Fixture) StepExchange {
	ep := transport.For(s)
	return func(st Step, req []byte) ([]byte, [][]byte) {
		sink := &vectorSink{server: s, fx: fx}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var m decode.Message
		if err := ep.Decoder().Decode(&m, req); err != nil {
			return ep.DecodeError(nil, &m, err).Body, sink.notes
		}
		d, refusal := ep.Classify(&m, []byte(st.Version), st.HasVersion)
		var reply fastmcp.Reply
		switch {
		case refusal != nil && m.Kind() == decode.KindRequest:
			reply.Body = decode.AppendError(nil, m.ID().Raw(), int64(refusal.Code), refusal.Message, refusal.Data, false)
		case refusal != nil:
		default:
			state := ep.Stateless(d)
			reply = ep.Serve(ctx, &state, &m, sink, nil)
		}
		return reply.Body, sink.notes
	}
}

type vectorSink struct {
	server *fastmcp.Server
	fx     *Fixture
	mu     sync.Mutex
	notes  [][]byte
}

func (k *vectorSink) Notify(_ context.Context, msg []byte) error {
	k.mu.Lock()
	k.notes = append(k.notes, bytes.Clone(msg))
	n := len(k.notes)
	k.mu.Unlock()
	if k.fx.OnNotify != nil {
		k.fx.OnNotify(k.server, n, msg)
	}
	return nil
}
