package fastmcp_test

// Wire vectors: literal JSON-RPC exchanges in testdata/vectors/*.txtar, run against the core
// through Dispatch (TestVectors). The runner, RunVector, takes the exchange as a function, so
// the same files can be run through the stdio and Streamable HTTP transports: build the server
// with NewFixtureServer, wrap it in the transport, and pass an Exchange that sends one request
// and collects what comes back (the reply, and the notifications written for the request
// before it). Such an exchange must call Fixture.OnNotify for each notification as it arrives,
// as CoreExchange does (the listen fixture ends its stream that way), and a transport that
// writes 7-bit output passes VectorOptions{ASCII: true}. The runner and the fixtures use only
// the public API and internal/wireschema, so they can move to a shared test package unchanged.
//
// # File format
//
// A vector file is a txtar-like archive (golang.org/x/tools/txtar is not a dependency of the
// module; the format is parsed here). Everything before the first section marker is a comment
// saying what the file covers and which seed acceptance case (seed-system-snodo.md §14.9) it
// adopts. A section marker is a line "-- NAME --"; its content runs to the next marker.
//
//	-- setup --                 one line: the fixture the server is built from (see fixtures)
//	-- request [Def] --         one line: the exact bytes sent; Def, if given, is the schema
//	                            definition the request itself must match (left out for
//	                            deliberately malformed requests)
//	-- reply Def --             one line: the exact bytes expected back, and the definition of
//	                            the official 2026-07-28 schema they must match
//	-- no reply --              nothing must come back (a notification, a response object)
//	-- notifications Def... --  the notifications the request's sink receives, one per line,
//	                            in order; one Def for all lines or one per line. Without this
//	                            section the request must produce no notification at all.
//
// Every request is followed by exactly one of reply and no reply; blank lines and lines
// starting with "#" inside a section are ignored (JSON-RPC messages are one line each).
//
// # Placeholders
//
// Some reply bytes are random by design: requestState is sealed with a random nonce (and a
// random per-process key), and pagination cursors are opaque. In a reply or notification,
// {{name}} stands for such a token: the first time a name appears it matches a run of
// [A-Za-z0-9_-] and captures it; afterwards it must equal the captured value. In a request,
// {{name}} is replaced by the captured value, and {{name:tamper}} by the captured value with
// its middle character changed (a tampered token). Names are scoped to one file.
//
// # Schema definitions
//
// Each reply and notification is validated against its definition with wireschema:
//   - a definition whose name ends in "Response", the MCP error responses
//     (UnsupportedProtocolVersionError, MissingRequiredClientCapabilityError,
//     HeaderMismatchError) and the notifications are validated as the whole message;
//   - the JSON-RPC error objects (ParseError, InvalidRequestError, MethodNotFoundError,
//     InvalidParamsError, InternalError) are validated against the message's error member,
//     and the whole message against JSONRPCErrorResponse;
//   - result definitions (InputRequiredResult, …Result) are validated against the result
//     member, and the whole message against JSONRPCResultResponse.
//
// The schema's RequestId is a string or an integer, and its error response makes id optional;
// JSON-RPC 2.0 answers a request whose id cannot be read with "id":null, as the core does. Such
// a reply is validated with its null id left out.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// Exchange sends one request and returns the reply (nil for none) and the notifications the
// request produced, in order.
type Exchange func(req []byte) (reply []byte, notes [][]byte)

// Vector is one parsed vector file.
type Vector struct {
	File    string
	Comment string
	Setup   string
	Steps   []VectorStep
}

// VectorStep is one request and what it must produce.
type VectorStep struct {
	Line       int // of the request marker, for messages
	Request    string
	RequestDef string
	NoReply    bool
	Reply      string
	ReplyDef   string
	Notes      []string
	NoteDefs   []string
}

var markerRE = regexp.MustCompile(`^-- (.+) --$`)

// ParseVector parses the text of a vector file.
func ParseVector(file string, data []byte) (*Vector, error) {
	v := &Vector{File: file}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	type section struct {
		name string
		args []string
		line int
		body []string
	}
	var sections []section
	var comment []string
	for i, l := range lines {
		if m := markerRE.FindStringSubmatch(l); m != nil {
			f := strings.Fields(m[1])
			sections = append(sections, section{name: f[0], args: f[1:], line: i + 1})
			if f[0] == "no" && len(f) == 2 && f[1] == "reply" {
				sections[len(sections)-1].name, sections[len(sections)-1].args = "no reply", nil
			}
			continue
		}
		if len(sections) == 0 {
			comment = append(comment, l)
			continue
		}
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		s := &sections[len(sections)-1]
		s.body = append(s.body, l)
	}
	v.Comment = strings.TrimSpace(strings.Join(comment, "\n"))
	if v.Comment == "" {
		return nil, fmt.Errorf("%s: no comment header saying what the vector covers", file)
	}
	oneLine := func(s section) (string, error) {
		if len(s.body) != 1 {
			return "", fmt.Errorf("%s:%d: section %q has %d lines, want 1", file, s.line, s.name, len(s.body))
		}
		return s.body[0], nil
	}
	var cur *VectorStep
	for i, s := range sections {
		if i == 0 && s.name != "setup" {
			return nil, fmt.Errorf("%s:%d: the first section must be setup", file, s.line)
		}
		var err error
		switch s.name {
		case "setup":
			if i != 0 {
				return nil, fmt.Errorf("%s:%d: setup must come first, once", file, s.line)
			}
			v.Setup, err = oneLine(s)
		case "request":
			if cur != nil && !cur.NoReply && cur.Reply == "" {
				return nil, fmt.Errorf("%s:%d: the request at line %d has no reply section", file, s.line, cur.Line)
			}
			if len(s.args) > 1 {
				return nil, fmt.Errorf("%s:%d: request takes at most one definition", file, s.line)
			}
			v.Steps = append(v.Steps, VectorStep{Line: s.line})
			cur = &v.Steps[len(v.Steps)-1]
			if len(s.args) == 1 {
				cur.RequestDef = s.args[0]
			}
			cur.Request, err = oneLine(s)
		case "reply", "no reply":
			switch {
			case cur == nil:
				err = fmt.Errorf("%s:%d: %s before any request", file, s.line, s.name)
			case cur.NoReply || cur.Reply != "":
				err = fmt.Errorf("%s:%d: a second reply for the request at line %d", file, s.line, cur.Line)
			case s.name == "no reply":
				if len(s.body) != 0 {
					err = fmt.Errorf("%s:%d: no reply has a body", file, s.line)
				}
				cur.NoReply = true
			case len(s.args) != 1:
				err = fmt.Errorf("%s:%d: reply needs exactly one schema definition", file, s.line)
			default:
				cur.ReplyDef = s.args[0]
				cur.Reply, err = oneLine(s)
			}
		case "notifications":
			switch {
			case cur == nil:
				err = fmt.Errorf("%s:%d: notifications before any request", file, s.line)
			case cur.Notes != nil:
				err = fmt.Errorf("%s:%d: a second notifications section", file, s.line)
			case len(s.body) == 0:
				err = fmt.Errorf("%s:%d: empty notifications section (leave it out instead)", file, s.line)
			case len(s.args) != 1 && len(s.args) != len(s.body):
				err = fmt.Errorf("%s:%d: notifications needs one definition, or one per line", file, s.line)
			default:
				cur.Notes = s.body
				for j := range s.body {
					cur.NoteDefs = append(cur.NoteDefs, s.args[min(j, len(s.args)-1)])
				}
			}
		default:
			err = fmt.Errorf("%s:%d: unknown section %q", file, s.line, s.name)
		}
		if err != nil {
			return nil, err
		}
	}
	if v.Setup == "" {
		return nil, fmt.Errorf("%s: no setup section", file)
	}
	if len(v.Steps) == 0 {
		return nil, fmt.Errorf("%s: no request", file)
	}
	if cur != nil && !cur.NoReply && cur.Reply == "" {
		return nil, fmt.Errorf("%s:%d: the last request has no reply section", file, cur.Line)
	}
	return v, nil
}

// LoadVectors parses every vector file in dir.
func LoadVectors(t testing.TB, dir string) []*Vector {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no vectors in %s", dir)
	var vs []*Vector
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		v, err := ParseVector(filepath.Base(f), data)
		require.NoError(t, err)
		vs = append(vs, v)
	}
	return vs
}

var placeholderRE = regexp.MustCompile(`\{\{([a-z][a-z0-9_]*)(:tamper)?\}\}`)

// substitute fills the placeholders of a request with captured values.
func substitute(t testing.TB, where, req string, vars map[string]string) []byte {
	t.Helper()
	return []byte(placeholderRE.ReplaceAllStringFunc(req, func(p string) string {
		m := placeholderRE.FindStringSubmatch(p)
		val, ok := vars[m[1]]
		if !ok {
			t.Fatalf("%s: placeholder {{%s}} used before a reply captured it", where, m[1])
		}
		if m[2] != "" {
			return tamper(val)
		}
		return val
	}))
}

// tamper changes the middle character of a base64url token to another one of the alphabet.
func tamper(tok string) string {
	b := []byte(tok)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// matchExpected reports whether actual matches the expected line, capturing new placeholders
// into vars.
func matchExpected(expected string, actual []byte, vars map[string]string) bool {
	var re strings.Builder
	re.WriteString("^")
	var names []string
	last := 0
	for _, loc := range placeholderRE.FindAllStringSubmatchIndex(expected, -1) {
		re.WriteString(regexp.QuoteMeta(expected[last:loc[0]]))
		name := expected[loc[2]:loc[3]]
		if val, ok := vars[name]; ok {
			re.WriteString(regexp.QuoteMeta(val))
		} else {
			re.WriteString(`([A-Za-z0-9_-]+)`)
			names = append(names, name)
		}
		last = loc[1]
	}
	re.WriteString(regexp.QuoteMeta(expected[last:]))
	re.WriteString("$")
	m := regexp.MustCompile(re.String()).FindSubmatch(actual)
	if m == nil {
		return false
	}
	captured := map[string]string{}
	for i, n := range names {
		if prev, ok := captured[n]; ok && prev != string(m[i+1]) {
			return false // the same new name twice in one line must capture one value
		}
		captured[n] = string(m[i+1])
	}
	for n, val := range captured {
		vars[n] = val
	}
	return true
}

// errorObjectDefs are the schema definitions of a JSON-RPC error object (not a response).
var errorObjectDefs = map[string]bool{
	"ParseError": true, "InvalidRequestError": true, "MethodNotFoundError": true,
	"InvalidParamsError": true, "InternalError": true,
}

// ValidateWire checks that msg is one line of JSON matching definition def of the official
// 2026-07-28 schema (see the package comment of this file for which part is validated).
func ValidateWire(t testing.TB, where, def string, msg []byte) {
	t.Helper()
	if bytes.ContainsAny(msg, "\r\n") {
		t.Fatalf("%s: the message is not one line:\n%s", where, msg)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(msg, &env); err != nil {
		t.Fatalf("%s: the message is not a JSON object: %v\n%s", where, err, msg)
	}
	check := func(def string, b []byte) {
		t.Helper()
		if err := wireschema.Validate(wireschema.Latest, def, b); err != nil {
			t.Fatalf("%s: does not match %s: %v\n%s", where, def, err, b)
		}
	}
	whole := msg
	if string(env["id"]) == "null" && env["error"] != nil {
		delete(env, "id")
		whole, _ = json.Marshal(env)
	}
	switch {
	case errorObjectDefs[def]:
		require.Contains(t, env, "error", "%s: %s wants an error response", where, def)
		check(def, env["error"])
		check("JSONRPCErrorResponse", whole)
	case strings.HasSuffix(def, "Result"):
		require.Contains(t, env, "result", "%s: %s wants a result response", where, def)
		check(def, env["result"])
		check("JSONRPCResultResponse", whole)
	default:
		check(def, whole)
	}
}

// VectorOptions adapt RunVector to a transport.
type VectorOptions struct {
	// ASCII says the transport writes 7-bit output (stdio escapes every non-ASCII character
	// as \uXXXX): the expected replies and notifications are escaped the same way before
	// they are compared.
	ASCII bool
}

// RunVector runs the steps of v through exchange, comparing every reply and notification with
// the vector byte for byte and validating each against its schema definition.
func RunVector(t *testing.T, v *Vector, exchange Exchange, opts VectorOptions) {
	t.Helper()
	vars := map[string]string{}
	expect := func(line string) string {
		if opts.ASCII {
			return string(decode.AppendASCII(nil, []byte(line)))
		}
		return line
	}
	for _, st := range v.Steps {
		where := fmt.Sprintf("%s:%d", v.File, st.Line)
		req := substitute(t, where, st.Request, vars)
		if st.RequestDef != "" {
			ValidateWire(t, where+" (request)", st.RequestDef, req)
		}
		reply, notes := exchange(req)
		if st.NoReply {
			if reply != nil {
				t.Fatalf("%s: want no reply, got\n%s", where, reply)
			}
		} else {
			if want := expect(st.Reply); !matchExpected(want, reply, vars) {
				t.Fatalf("%s: reply differs\nwant: %s\n got: %s\n%s", where, want, reply, firstDiff(want, reply))
			}
			ValidateWire(t, where+" (reply)", st.ReplyDef, reply)
		}
		if len(notes) != len(st.Notes) {
			t.Fatalf("%s: want %d notifications, got %d:\n%s", where, len(st.Notes), len(notes), bytes.Join(notes, []byte("\n")))
		}
		for i, n := range notes {
			if want := expect(st.Notes[i]); !matchExpected(want, n, vars) {
				t.Fatalf("%s: notification %d differs\nwant: %s\n got: %s\n%s", where, i+1, want, n, firstDiff(want, n))
			}
			ValidateWire(t, fmt.Sprintf("%s (notification %d)", where, i+1), st.NoteDefs[i], n)
		}
	}
}

// firstDiff points at the first byte where got leaves want (placeholders make it approximate).
func firstDiff(want string, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	return fmt.Sprintf("first difference at byte %d: want %q, got %q", i, clip(want[i:]), clip(string(got[i:])))
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// CoreExchange sends requests to s through Dispatch with a sink that records notifications and
// tells the fixture of each one (fx.OnNotify), as a transport would write them.
func CoreExchange(s *fastmcp.Server, fx *Fixture) Exchange {
	return func(req []byte) ([]byte, [][]byte) {
		sink := &vectorSink{server: s, fx: fx}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		reply := s.Dispatch(ctx, req, sink)
		return reply, sink.notes
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

func TestVectors(t *testing.T) {
	for _, v := range LoadVectors(t, filepath.Join("testdata", "vectors")) {
		t.Run(strings.TrimSuffix(v.File, ".txtar"), func(t *testing.T) {
			s, fx := NewFixtureServer(t, v.Setup)
			RunVector(t, v, CoreExchange(s, fx), VectorOptions{})
		})
	}
}

// TestVectorsASCII runs the vectors as a 7-bit transport sees them: the core's output with
// every non-ASCII character escaped, as stdio writes it, against expectations escaped alike.
func TestVectorsASCII(t *testing.T) {
	for _, v := range LoadVectors(t, filepath.Join("testdata", "vectors")) {
		t.Run(strings.TrimSuffix(v.File, ".txtar"), func(t *testing.T) {
			s, fx := NewFixtureServer(t, v.Setup)
			core := CoreExchange(s, fx)
			RunVector(t, v, func(req []byte) ([]byte, [][]byte) {
				reply, notes := core(req)
				for i, n := range notes {
					notes[i] = decode.AppendASCII(nil, n)
				}
				if reply != nil {
					reply = decode.AppendASCII(nil, reply)
				}
				return reply, notes
			}, VectorOptions{ASCII: true})
		})
	}
}

// TestVectorsCoverMethods checks that the vectors send every method of the core, and that
// every error code the core emits appears in some reply.
func TestVectorsCoverMethods(t *testing.T) {
	methods := map[string]bool{}
	codes := map[string]bool{}
	for _, v := range LoadVectors(t, filepath.Join("testdata", "vectors")) {
		for _, st := range v.Steps {
			var m struct{ Method string }
			if json.Unmarshal([]byte(st.Request), &m) == nil {
				methods[m.Method] = true
			}
			var r struct {
				Error *struct{ Code int }
			}
			if json.Unmarshal([]byte(placeholderRE.ReplaceAllString(st.Reply, "x")), &r) == nil && r.Error != nil {
				codes[strconv.Itoa(r.Error.Code)] = true
			}
		}
	}
	for _, m := range []string{
		fastmcp.MethodDiscover, fastmcp.MethodToolsList, fastmcp.MethodToolsCall, fastmcp.MethodPromptsList,
		fastmcp.MethodPromptsGet, fastmcp.MethodResourcesList, fastmcp.MethodResourceTemplates,
		fastmcp.MethodResourcesRead, fastmcp.MethodComplete, fastmcp.MethodListen,
	} {
		require.True(t, methods[m], "no vector sends %s", m)
	}
	for _, c := range []fastmcp.Code{
		fastmcp.CodeParseError, fastmcp.CodeInvalidRequest, fastmcp.CodeMethodNotFound, fastmcp.CodeInvalidParams,
		fastmcp.CodeInternalError, fastmcp.CodeMissingCapability, fastmcp.CodeUnsupportedVersion, fastmcp.CodeAccessDenied,
	} {
		require.True(t, codes[strconv.Itoa(int(c))], "no vector replies with code %d", c)
	}
}

func TestParseVectorRejects(t *testing.T) {
	for name, text := range map[string]string{
		"no comment":       "-- setup --\necho\n-- request --\n{}\n-- no reply --\n",
		"no setup":         "c\n-- request --\n{}\n-- no reply --\n",
		"no reply section": "c\n-- setup --\necho\n-- request --\n{}\n",
		"two replies":      "c\n-- setup --\necho\n-- request --\n{}\n-- no reply --\n-- no reply --\n",
		"reply no def":     "c\n-- setup --\necho\n-- request --\n{}\n-- reply --\n{}\n",
		"two lines":        "c\n-- setup --\necho\n-- request --\n{}\n{}\n-- no reply --\n",
		"unknown section":  "c\n-- setup --\necho\n-- answer --\n{}\n",
		"defs per line":    "c\n-- setup --\necho\n-- request --\n{}\n-- no reply --\n-- notifications A B --\n{}\n{}\n{}\n",
	} {
		_, err := ParseVector(name, []byte(text))
		require.Error(t, err, name)
	}
}

func TestMatchExpected(t *testing.T) {
	vars := map[string]string{}
	require.True(t, matchExpected(`{"s":"{{state}}","n":1}`, []byte(`{"s":"AbC-_9","n":1}`), vars))
	require.Equal(t, "AbC-_9", vars["state"])
	require.True(t, matchExpected(`{"s":"{{state}}"}`, []byte(`{"s":"AbC-_9"}`), vars))
	require.False(t, matchExpected(`{"s":"{{state}}"}`, []byte(`{"s":"AbC-_8"}`), vars))
	require.False(t, matchExpected(`{"a":"{{x}}","b":"{{x}}"}`, []byte(`{"a":"1","b":"2"}`), vars))
	require.False(t, matchExpected(`{"n":1}`, []byte(`{"n":1} `), vars))
	require.Equal(t, `{"s":"AbC-_9"}`, string(substitute(t, "t", `{"s":"{{state}}"}`, vars)))
	require.NotEqual(t, vars["state"], tamper(vars["state"]))
	require.Len(t, tamper(vars["state"]), len(vars["state"]))
}

// Fixtures. Each vector file names one in its setup section; every file gets a server of its
// own. Fixtures use only the package's public API, so transports can build the same servers.

// Fixture describes a server the vectors run against.
type Fixture struct {
	Info     fastmcp.Implementation
	Config   fastmcp.Config
	Register func(s *fastmcp.Server)
	// OnNotify, if set, is told of every notification a request produced (n counts them from
	// 1 within the request), from the goroutine that serves the request. The listen fixture
	// uses it to change the catalog after the acknowledgement and to end the stream.
	OnNotify func(s *fastmcp.Server, n int, msg []byte)
}

// vectorInfo is the identity of the fixture servers: every result carries it.
var vectorInfo = fastmcp.Implementation{Name: "vectors", Version: "1.0.0"}

var fixtures = map[string]func() *Fixture{
	"echo":          echoFixture,
	"discover":      discoverFixture,
	"empty":         func() *Fixture { return &Fixture{Info: vectorInfo} },
	"mrtr":          mrtrFixture,
	"components":    componentsFixture,
	"pages":         pagesFixture,
	"listen":        listenFixture,
	"authz":         func() *Fixture { return authzFixture(false) },
	"authz_conceal": func() *Fixture { return authzFixture(true) },
	"faults":        faultsFixture,
	"numbers":       numbersFixture,
}

// numbersFixture serves tools whose arguments are numbers: typed tools decoded by the plan
// (small, ratio) and by sonic (sleep), and a raw tool whose schema bounds them (bounded). Each
// answers with its arguments as JSON.
func numbersFixture() *Fixture {
	echo := func(in any) (fastmcp.ToolResult, error) {
		b, err := json.Marshal(in)
		return fastmcp.ToolResult{Text: string(b)}, err
	}
	return &Fixture{Info: vectorInfo, Register: func(s *fastmcp.Server) {
		type sleepIn struct {
			MS   int64   `json:"ms"`
			List []int64 `json:"list,omitempty"`
		}
		fastmcp.AddTool(s, fastmcp.Tool{Name: "sleep", Description: "Sleeps for ms milliseconds"},
			func(_ context.Context, _ *fastmcp.Request, in sleepIn) (fastmcp.ToolResult, error) { return echo(in) })
		type smallIn struct {
			N int8   `json:"n,omitempty"`
			U uint16 `json:"u,omitempty"`
		}
		fastmcp.AddTool(s, fastmcp.Tool{Name: "small", Description: "Takes small integers"},
			func(_ context.Context, _ *fastmcp.Request, in smallIn) (fastmcp.ToolResult, error) { return echo(in) })
		type ratioIn struct {
			R float64 `json:"r"`
		}
		fastmcp.AddTool(s, fastmcp.Tool{Name: "ratio", Description: "Takes a float"},
			func(_ context.Context, _ *fastmcp.Request, in ratioIn) (fastmcp.ToolResult, error) { return echo(in) })
		s.AddRawTool(fastmcp.Tool{Name: "bounded", Description: "Bounded numbers",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":100},"tags":{"type":"array","uniqueItems":true}}}`)},
			func(_ context.Context, _ *fastmcp.Request, args json.RawMessage) (fastmcp.ToolResult, error) {
				return text(string(args))
			})
	}}
}

// NewFixtureServer builds the server of the named fixture, with its logs discarded.
func NewFixtureServer(t testing.TB, name string) (*fastmcp.Server, *Fixture) {
	t.Helper()
	mk, ok := fixtures[name]
	if !ok {
		t.Fatalf("unknown fixture %q", name)
	}
	fx := mk()
	cfg := fx.Config
	cfg.Logger = slog.New(slog.DiscardHandler)
	s, err := fastmcp.NewServer(fx.Info, &cfg)
	require.NoError(t, err)
	if fx.Register != nil {
		fx.Register(s)
	}
	t.Cleanup(s.CloseSubscriptions)
	return s, fx
}

func text(s string) (fastmcp.ToolResult, error) { return fastmcp.ToolResult{Text: s}, nil }

var objectSchema = json.RawMessage(`{"type":"object"}`)

// schema2020 is the conformance suite's json_schema_2020_12_tool input schema, written with
// whitespace: tools/list must list it with every keyword kept, in order, compacted.
const schema2020 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
    }
  },
  "properties": {
    "name": { "type": "string" },
    "address": { "$ref": "#/$defs/address" },
    "contactMethod": { "type": "string", "enum": ["phone", "email"] },
    "phone": { "type": "string", "x-mcp-header": "Phone" },
    "email": { "type": "string" }
  },
  "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
  "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
  "then": { "required": ["phone"] },
  "else": { "required": ["email"] },
  "additionalProperties": false
}`

// echoFixture serves tools: every result shape, protocol errors, panics, progress, logging.
func echoFixture() *Fixture {
	var count atomic.Int64
	return &Fixture{Info: vectorInfo, Register: func(s *fastmcp.Server) {
		// Registered out of order: tools/list sorts by name.
		type echoIn struct {
			Text string `json:"text"`
		}
		fastmcp.AddTool(s, fastmcp.Tool{
			Name: "echo", Description: "Echoes its text",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"Text to echo"}},"required":["text"]}`),
		}, func(_ context.Context, _ *fastmcp.Request, in echoIn) (fastmcp.ToolResult, error) {
			return text(in.Text)
		})
		type addIn struct {
			A int `json:"a"`
			B int `json:"b"`
		}
		type addOut struct {
			Sum int `json:"sum"`
		}
		fastmcp.AddStructuredTool(s, fastmcp.Tool{
			Name: "add", Description: "Adds two integers",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`),
		}, func(_ context.Context, _ *fastmcp.Request, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		})
		s.AddRawTool(fastmcp.Tool{Name: "fail", Description: "Fails like a tool", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{}, errors.New("the disk is full")
			})
		s.AddRawTool(fastmcp.Tool{Name: "crash", Description: "Panics", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				panic("secret internal detail")
			})
		s.AddRawTool(fastmcp.Tool{Name: "count", Description: "Counts its calls", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return text(strconv.FormatInt(count.Add(1), 10))
			})
		s.AddRawTool(fastmcp.Tool{Name: "refuse", Description: "Answers a protocol error", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{}, fastmcp.NewError(fastmcp.CodeInvalidParams, "Region is closed", json.RawMessage(`{"region":"mars"}`))
			})
		s.AddRawTool(fastmcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features",
			InputSchema: json.RawMessage(schema2020)},
			func(_ context.Context, _ *fastmcp.Request, args json.RawMessage) (fastmcp.ToolResult, error) {
				return text("called with " + string(args))
			})
		s.AddRawTool(fastmcp.Tool{Name: "progress", Description: "Reports progress", InputSchema: objectSchema},
			func(ctx context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				for i, p := range []float64{0, 50, 100} {
					if err := r.Progress(ctx, p, 100, fmt.Sprintf("Completed step %d of 3", i+1)); err != nil {
						return fastmcp.ToolResult{}, err
					}
				}
				_ = r.Progress(ctx, 100, 100, "repeated") // refused: progress must increase (a fourth notification would fail the vector)
				return text("done")
			})
		s.AddRawTool(fastmcp.Tool{Name: "log", Description: "Logs at four levels", InputSchema: objectSchema},
			func(ctx context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				for _, l := range []struct {
					level fastmcp.LogLevel
					data  any
				}{
					{fastmcp.LogDebug, "connecting"},
					{fastmcp.LogInfo, "connected"},
					{fastmcp.LogWarning, map[string]string{"disk": "low"}},
					{fastmcp.LogError, "write failed"},
				} {
					if err := r.Log(ctx, l.level, "vec", l.data); err != nil {
						return fastmcp.ToolResult{}, err
					}
				}
				return text("logged")
			})
		s.AddRawTool(fastmcp.Tool{Name: "meta", Description: "Returns the request _meta", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				return text(string(r.Meta()))
			})
		s.AddRawTool(fastmcp.Tool{Name: "rich", Description: "Returns every content type", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{Text: "all kinds", Content: []fastmcp.Content{
					fastmcp.Image([]byte{1, 2, 3}, "image/png"),
					fastmcp.Audio([]byte("RIFF"), "audio/wav"),
					fastmcp.ResourceLink("test://linked", "linked", "text/plain"),
					fastmcp.Embedded(fastmcp.ResourceContents{URI: "test://embedded", MimeType: "text/plain", Text: "embedded text"}),
				}}, nil
			})
		s.AddRawTool(fastmcp.Tool{Name: "loose_json", Description: "Returns JSON with whitespace", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				c := fastmcp.Text("block")
				c.Meta = json.RawMessage("{ \"block\" : true }")
				return fastmcp.ToolResult{
					Content:    []fastmcp.Content{c},
					Structured: json.RawMessage("{\n  \"x\": [1, 2]\n}"),
					Meta:       json.RawMessage("{\n  \"com.example/k\": 1\n}"),
				}, nil
			})
		s.AddRawTool(fastmcp.Tool{Name: "bad_meta", Description: "Returns a _meta that is not an object", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{Text: "x", Meta: json.RawMessage(`[1]`)}, nil
			})
		yes := true
		s.AddRawTool(fastmcp.Tool{
			Name: "annotated", Title: "Annotated Tool", Description: "Has every listed field", InputSchema: objectSchema,
			Annotations: &fastmcp.ToolAnnotations{Title: "Annotated", ReadOnlyHint: &yes},
			Icons:       []fastmcp.Icon{{Src: "https://example.com/icon.png", MimeType: "image/png", Sizes: []string{"48x48"}}},
			Meta:        json.RawMessage(`{"com.example/owner":"vectors"}`),
		}, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return text("ok")
		})
	}}
}

// discoverFixture has one component of each kind, instructions, a public discover cache and a
// server identity with every optional field.
func discoverFixture() *Fixture {
	return &Fixture{
		Info: fastmcp.Implementation{Name: "vectors", Version: "1.0.0", Title: "Vector Server", WebsiteURL: "https://example.com/vectors"},
		Config: fastmcp.Config{
			Instructions:  "Call echo to repeat text.",
			DiscoverCache: fastmcp.CacheHint{TTL: time.Hour, Scope: fastmcp.CachePublic},
		},
		Register: func(s *fastmcp.Server) {
			s.AddRawTool(fastmcp.Tool{Name: "echo", InputSchema: objectSchema},
				func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) { return text("") })
			s.AddPrompt(fastmcp.Prompt{Name: "p", Arguments: []fastmcp.PromptArgument{{Name: "a"}},
				Complete: func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
					return fastmcp.Completion{}, nil
				}},
				func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{}, nil
				})
			s.AddResource(fastmcp.Resource{URI: "test://r", Name: "r"},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: "r"}}, nil
				})
		},
	}
}

// elicitAnswer is an ElicitResult.
type elicitAnswer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
}

const (
	confirmSchema = `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`
	nameSchema    = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	capitalParams = `{"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":20}`
)

// mrtrFixture serves multi round-trip requests on tools, a prompt and a resource.
func mrtrFixture() *Fixture {
	var confirmRuns atomic.Int64
	return &Fixture{Info: vectorInfo, Register: func(s *fastmcp.Server) {
		s.AddRawTool(fastmcp.Tool{Name: "confirm", Description: "Asks for confirmation (form elicitation)",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string"}}}`)},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				confirmRuns.Add(1)
				var a elicitAnswer
				ok, err := r.InputResponse("confirm", &a)
				switch {
				case err != nil:
					return fastmcp.ToolResult{}, err
				case !ok:
					return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"confirm": fastmcp.ElicitForm("Deploy to prod?", json.RawMessage(confirmSchema)),
					}}
				case a.Action == "accept":
					return text(fmt.Sprintf("deployed: %v", a.Content["ok"]))
				}
				return text("not deployed: " + a.Action)
			})
		s.AddRawTool(fastmcp.Tool{Name: "confirm_runs", Description: "How often confirm's handler ran", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return text(strconv.FormatInt(confirmRuns.Load(), 10))
			})
		s.AddRawTool(fastmcp.Tool{Name: "login", Description: "Asks the user to visit a URL", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				var a elicitAnswer
				if ok, err := r.InputResponse("login", &a); err != nil || !ok {
					return fastmcp.ToolResult{}, cmpOr(err, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"login": fastmcp.ElicitURL("Sign in to continue", "https://example.com/login"),
					}})
				}
				return text("login: " + a.Action)
			})
		s.AddRawTool(fastmcp.Tool{Name: "sample", Description: "Asks the client's model", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				var a struct {
					Content struct{ Text string } `json:"content"`
				}
				if ok, err := r.InputResponse("capital", &a); err != nil || !ok {
					return fastmcp.ToolResult{}, cmpOr(err, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"capital": fastmcp.Sample(json.RawMessage(capitalParams)),
					}})
				}
				return text("model said: " + a.Content.Text)
			})
		s.AddRawTool(fastmcp.Tool{Name: "sample_tools", Description: "Asks the client's model, with tools", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
					"plan": fastmcp.Sample(json.RawMessage(`{"messages":[],"maxTokens":5,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)),
				}}
			})
		s.AddRawTool(fastmcp.Tool{Name: "roots", Description: "Asks for the client's roots", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				var a struct{ Roots []json.RawMessage }
				if ok, err := r.InputResponse("roots", &a); err != nil || !ok {
					return fastmcp.ToolResult{}, cmpOr(err, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"roots": fastmcp.ListRoots(),
					}})
				}
				return text(fmt.Sprintf("%d roots", len(a.Roots)))
			})
		s.AddRawTool(fastmcp.Tool{Name: "multi", Description: "Asks three things; keeps partial answers", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				have := map[string]string{}
				if st := r.State(); st != nil {
					if err := json.Unmarshal(st, &have); err != nil {
						return fastmcp.ToolResult{}, err
					}
				}
				var user elicitAnswer
				if ok, err := r.InputResponse("user_name", &user); err != nil {
					return fastmcp.ToolResult{}, err
				} else if ok {
					have["user_name"], _ = user.Content["name"].(string)
				}
				var capital struct {
					Content struct{ Text string } `json:"content"`
				}
				if ok, err := r.InputResponse("capital", &capital); err != nil {
					return fastmcp.ToolResult{}, err
				} else if ok {
					have["capital"] = capital.Content.Text
				}
				var roots struct{ Roots []json.RawMessage }
				if ok, err := r.InputResponse("roots", &roots); err != nil {
					return fastmcp.ToolResult{}, err
				} else if ok {
					have["roots"] = strconv.Itoa(len(roots.Roots))
				}
				asks := map[string]fastmcp.InputRequest{
					"user_name": fastmcp.ElicitForm("Your name?", json.RawMessage(nameSchema)),
					"capital":   fastmcp.Sample(json.RawMessage(capitalParams)),
					"roots":     fastmcp.ListRoots(),
				}
				missing := map[string]fastmcp.InputRequest{}
				for k, req := range asks {
					if _, ok := have[k]; !ok {
						missing[k] = req
					}
				}
				if len(missing) > 0 {
					st, _ := json.Marshal(have)
					return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: missing, State: st}
				}
				return text(fmt.Sprintf("%s, %s, %s roots", have["user_name"], have["capital"], have["roots"]))
			})
		s.AddRawTool(fastmcp.Tool{Name: "steps", Description: "Three rounds: two questions, then done", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				n := 0
				if st := r.State(); len(st) == 1 {
					n = int(st[0])
				}
				if r.HasInputResponse(fmt.Sprintf("step%d", n+1)) {
					n++
				}
				if n < 2 {
					key := fmt.Sprintf("step%d", n+1)
					return fastmcp.ToolResult{}, &fastmcp.InputRequired{
						Requests: map[string]fastmcp.InputRequest{key: fastmcp.ElicitForm("Step "+strconv.Itoa(n+1)+"?", json.RawMessage(confirmSchema))},
						State:    []byte{byte(n)},
					}
				}
				return text("done after 2 steps")
			})
		s.AddRawTool(fastmcp.Tool{Name: "yield", Description: "Asks for an immediate retry (state only)", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				if string(r.State()) != "later" {
					return fastmcp.ToolResult{}, &fastmcp.InputRequired{State: []byte("later")}
				}
				return text("resumed")
			})
		s.AddPrompt(fastmcp.Prompt{Name: "context_prompt", Description: "Asks for context first",
			Arguments: []fastmcp.PromptArgument{{Name: "topic"}},
			Complete: func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
				return fastmcp.Completion{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
					"x": fastmcp.ElicitForm("?", json.RawMessage(nameSchema)),
				}}
			}},
			func(_ context.Context, r *fastmcp.Request, _ map[string]string) (fastmcp.PromptResult, error) {
				var a elicitAnswer
				if ok, err := r.InputResponse("user_context", &a); err != nil || !ok {
					return fastmcp.PromptResult{}, cmpOr(err, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"user_context": fastmcp.ElicitForm("What context?", json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)),
					}})
				}
				return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{
					fastmcp.UserMessage(fastmcp.Text(fmt.Sprintf("Prompt with context: %v", a.Content["context"]))),
				}}, nil
			})
		s.AddResource(fastmcp.Resource{URI: "test://mrtr/secret", Name: "secret", MimeType: "text/plain"},
			func(_ context.Context, r *fastmcp.Request, _ string) ([]fastmcp.ResourceContents, error) {
				var a elicitAnswer
				if ok, err := r.InputResponse("password", &a); err != nil || !ok {
					return nil, cmpOr(err, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"password": fastmcp.ElicitForm("Password?", json.RawMessage(`{"type":"object","properties":{"password":{"type":"string"}},"required":["password"]}`)),
					}})
				}
				return []fastmcp.ResourceContents{{Text: "unlocked: " + a.Action}}, nil
			})
	}}
}

// cmpOr returns err when it is not nil, else ir.
func cmpOr(err error, ir *fastmcp.InputRequired) error {
	if err != nil {
		return err
	}
	return ir
}

// componentsFixture serves resources, a resource template, prompts and completion.
func componentsFixture() *Fixture {
	return &Fixture{
		Info: vectorInfo,
		Config: fastmcp.Config{
			ResourcesCache: fastmcp.CacheHint{TTL: 30 * time.Second},
			PromptsCache:   fastmcp.CacheHint{TTL: 10 * time.Second, Scope: fastmcp.CachePublic},
		},
		Register: func(s *fastmcp.Server) {
			s.AddResource(fastmcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MimeType: "text/plain"},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: "This is the content of the static text resource."}}, nil
				})
			s.AddResource(fastmcp.Resource{URI: "test://static-binary", Name: "static-binary", MimeType: "image/png", Size: 4},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Blob: []byte{0x89, 'P', 'N', 'G'}}}, nil
				})
			s.AddResource(fastmcp.Resource{URI: "test://broken", Name: "broken"},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return nil, errors.New("connection refused by db-7.internal")
				})
			s.AddResource(fastmcp.Resource{URI: "test://cached", Name: "cached", Cache: &fastmcp.CacheHint{TTL: 5 * time.Second, Scope: fastmcp.CachePublic}},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: "cached", MimeType: "text/markdown"}}, nil
				})
			s.AddResourceTemplate(fastmcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template",
				Description: "Data by id", MimeType: "application/json",
				Complete: func(_ context.Context, _ *fastmcp.Request, _, value string, _ map[string]string) (fastmcp.Completion, error) {
					return fastmcp.CompletePrefix([]string{"123", "124", "200"}, value), nil
				}},
				func(_ context.Context, _ *fastmcp.Request, _ string, vars map[string]string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: `{"id":"` + vars["id"] + `"}`}}, nil
				})
			s.AddPrompt(fastmcp.Prompt{Name: "simple", Description: "A simple prompt"},
				func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{fastmcp.UserMessage(fastmcp.Text("This is a simple prompt."))}}, nil
				})
			s.AddPrompt(fastmcp.Prompt{Name: "with_args", Description: "A prompt with arguments",
				Arguments: []fastmcp.PromptArgument{{Name: "arg1", Required: true}, {Name: "arg2", Description: "Second", Required: true}, {Name: "arg3"}},
				Complete: func(_ context.Context, _ *fastmcp.Request, arg, value string, ctx map[string]string) (fastmcp.Completion, error) {
					if arg == "arg2" {
						return fastmcp.Completion{Values: []string{ctx["arg1"] + "-2"}}, nil
					}
					return fastmcp.CompletePrefix([]string{"alpha", "alpine", "beta"}, value), nil
				}},
				func(_ context.Context, _ *fastmcp.Request, args map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{Description: "Rendered", Messages: []fastmcp.PromptMessage{
						fastmcp.UserMessage(fastmcp.Text(fmt.Sprintf("arg1=%s, arg2=%s", args["arg1"], args["arg2"]))),
						fastmcp.AssistantMessage(fastmcp.Text("noted")),
					}}, nil
				})
			s.AddPrompt(fastmcp.Prompt{Name: "with_image", Description: "A prompt with an image and a resource"},
				func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{
						fastmcp.UserMessage(fastmcp.Image([]byte{0x89, 'P', 'N', 'G'}, "image/png")),
						fastmcp.UserMessage(fastmcp.Embedded(fastmcp.ResourceContents{URI: "test://static-text", MimeType: "text/plain", Text: "embedded"})),
					}}, nil
				})
			s.AddPrompt(fastmcp.Prompt{Name: "crash", Description: "Panics"},
				func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
					panic("secret internal detail")
				})
			s.AddPrompt(fastmcp.Prompt{Name: "too_many", Description: "Completes with too many values",
				Arguments: []fastmcp.PromptArgument{{Name: "x"}},
				Complete: func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
					return fastmcp.Completion{Values: make([]string, fastmcp.MaxCompletionValues+1)}, nil
				}},
				func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
					return fastmcp.PromptResult{}, nil
				})
		},
	}
}

// pagesFixture has a page size of 2: five tools and three prompts make several pages. The tool
// z_mutate removes t1, which expires the cursors of the old catalog.
func pagesFixture() *Fixture {
	return &Fixture{Info: vectorInfo, Config: fastmcp.Config{PageSize: 2}, Register: func(s *fastmcp.Server) {
		noop := func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) { return text("") }
		for _, n := range []string{"t3", "t1", "t4", "t2"} {
			s.AddRawTool(fastmcp.Tool{Name: n, InputSchema: objectSchema}, noop)
		}
		s.AddRawTool(fastmcp.Tool{Name: "z_mutate", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				s.RemoveTools("t1")
				return text("removed t1")
			})
		for _, n := range []string{"p1", "p2", "p3"} {
			s.AddPrompt(fastmcp.Prompt{Name: n}, func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
				return fastmcp.PromptResult{}, nil
			})
		}
	}}
}

// listenFixture has a tool and a resource. On a listen stream, after the acknowledgement it
// registers the tool t2 (tools/list_changed), after that notification it announces an update
// of test://watched, and after that one it closes the subscriptions, so the listen request
// gets its completion response. Any later listen is refused: the server is shutting down.
func listenFixture() *Fixture {
	return &Fixture{
		Info: vectorInfo,
		Register: func(s *fastmcp.Server) {
			s.AddRawTool(fastmcp.Tool{Name: "t1", InputSchema: objectSchema},
				func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) { return text("") })
			s.AddResource(fastmcp.Resource{URI: "test://watched", Name: "watched"},
				func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: "w"}}, nil
				})
		},
		OnNotify: func(s *fastmcp.Server, n int, _ []byte) {
			switch n {
			case 1:
				s.AddRawTool(fastmcp.Tool{Name: "t2", InputSchema: objectSchema},
					func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) { return text("") })
			case 2:
				s.NotifyResourceUpdated("test://not-subscribed")
				s.NotifyResourceUpdated("test://watched")
			case 3:
				s.CloseSubscriptions()
			}
		},
	}
}

// authzFixture has an authorization policy that hides, refuses and faults on chosen
// components, and wrappers (a rate limit, a timeout) behind it. A listen stream is closed as
// soon as it is acknowledged.
func authzFixture(conceal bool) *Fixture {
	var gateCalls atomic.Int64
	policy := func(_ context.Context, phase fastmcp.Phase, _ string, c fastmcp.Component) error {
		switch {
		case c.Name == "hidden", c.URI == "test://private", c.Name == "locked", c.RequestedURI == "test://docs/secret":
			return fastmcp.ErrRefused
		case phase == fastmcp.PhaseDiscovery:
			return nil
		case c.Name == "scoped":
			return fastmcp.NewError(-31001, "Insufficient scope", json.RawMessage(`{"required":"admin"}`))
		case c.Name == "faulty":
			return errors.New("policy store unreachable")
		case c.Name == "gate" && gateCalls.Add(1) == 1:
			return fastmcp.ErrRefused // the first call only
		}
		return nil
	}
	return &Fixture{
		Info:   vectorInfo,
		Config: fastmcp.Config{Authorizer: fastmcp.AuthorizerFunc(policy), ConcealRefusals: conceal},
		// A listen ends right after its acknowledgement, which shows the URIs it honours.
		OnNotify: func(s *fastmcp.Server, _ int, _ []byte) { s.CloseSubscriptions() },
		Register: func(s *fastmcp.Server) {
			ok := func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return text("ok")
			}
			for _, n := range []string{"open", "hidden", "scoped", "faulty"} {
				s.AddRawTool(fastmcp.Tool{Name: n, InputSchema: objectSchema}, ok)
			}
			s.AddRawTool(fastmcp.Tool{Name: "gate", InputSchema: objectSchema,
				Wrap: []fastmcp.Wrapper{fastmcp.RateLimit(fastmcp.RateLimitOptions{Limit: 1})}}, ok)
			s.AddRawTool(fastmcp.Tool{Name: "limited",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
				Wrap:        []fastmcp.Wrapper{fastmcp.RateLimit(fastmcp.RateLimitOptions{Limit: 1})}}, ok)
			wait := func(ctx context.Context, _ *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				<-ctx.Done()
				return fastmcp.ToolResult{}, ctx.Err()
			}
			s.AddRawTool(fastmcp.Tool{Name: "slow", InputSchema: objectSchema,
				Wrap: []fastmcp.Wrapper{fastmcp.Timeout(fastmcp.TimeoutOptions{Timeout: 20 * time.Millisecond})}}, wait)
			read := func(_ context.Context, _ *fastmcp.Request, uri string) ([]fastmcp.ResourceContents, error) {
				return []fastmcp.ResourceContents{{Text: uri}}, nil
			}
			s.AddResource(fastmcp.Resource{URI: "test://public", Name: "public"}, read)
			s.AddResource(fastmcp.Resource{URI: "test://private", Name: "private"}, read)
			s.AddResource(fastmcp.Resource{URI: "test://slow", Name: "slow-resource",
				Wrap: []fastmcp.Wrapper{fastmcp.Timeout(fastmcp.TimeoutOptions{Timeout: 20 * time.Millisecond})}},
				func(ctx context.Context, _ *fastmcp.Request, _ string) ([]fastmcp.ResourceContents, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				})
			s.AddResourceTemplate(fastmcp.ResourceTemplate{URITemplate: "test://docs/{name}", Name: "docs"},
				func(_ context.Context, _ *fastmcp.Request, uri string, _ map[string]string) ([]fastmcp.ResourceContents, error) {
					return []fastmcp.ResourceContents{{Text: uri}}, nil
				})
			s.AddPrompt(fastmcp.Prompt{Name: "locked"}, func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
				return fastmcp.PromptResult{}, nil
			})
		},
	}
}

// faultsFixture's handlers misbehave in the ways a server's own code can: a typed nil *Error
// as the error, invalid input requests, results the protocol does not allow, output that does
// not match the output schema, plain errors from resource, prompt and completion handlers.
func faultsFixture() *Fixture {
	return &Fixture{Info: vectorInfo, Register: func(s *fastmcp.Server) {
		var nilErr *fastmcp.Error
		tool := func(name string, output json.RawMessage, h fastmcp.RawToolHandler) {
			s.AddRawTool(fastmcp.Tool{Name: name, InputSchema: objectSchema, OutputSchema: output}, h)
		}
		tool("nil_error", nil, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: "fine"}, nilErr
		})
		tool("bad_input_method", nil, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
				"x": {Method: "ping", Params: json.RawMessage(`{}`)},
			}}
		})
		tool("bad_input_params", nil, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
				"x": {Method: "roots/list", Params: json.RawMessage(`{`)},
			}}
		})
		tool("bad_structured", nil, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Structured: make(chan int)}, nil
		})
		sum := json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)
		tool("wrong_output", sum, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Structured: map[string]int{"total": 3}}, nil
		})
		tool("no_output", sum, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return text("forgot the structured result")
		})
		tool("failed_output", sum, func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{}, errors.New("no sum today")
		})
		read := func(uri string, h fastmcp.ResourceHandler) {
			s.AddResource(fastmcp.Resource{URI: uri, Name: strings.TrimPrefix(uri, "test://")}, h)
		}
		read("test://nil-error", func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
			return nil, nilErr
		})
		read("test://empty", func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
			return nil, nil
		})
		read("test://refused", func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
			return nil, fastmcp.NewError(fastmcp.CodeInvalidParams, "Shard is read-only", nil)
		})
		prompt := func(name string, h fastmcp.PromptHandler, c fastmcp.CompletionHandler) {
			s.AddPrompt(fastmcp.Prompt{Name: name, Arguments: []fastmcp.PromptArgument{{Name: "a"}}, Complete: c}, h)
		}
		prompt("nil_error", func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
			return fastmcp.PromptResult{}, nilErr
		}, func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
			return fastmcp.Completion{}, nilErr
		})
		prompt("bad_role", func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
			return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{{Role: "system", Content: fastmcp.Text("x")}}}, nil
		}, func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
			return fastmcp.Completion{Values: []string{"a", "b"}, Total: 1}, nil
		})
		prompt("failing", func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
			return fastmcp.PromptResult{}, errors.New("template store unreachable")
		}, func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
			return fastmcp.Completion{}, errors.New("index unreachable")
		})
		prompt("bad_meta", func(context.Context, *fastmcp.Request, map[string]string) (fastmcp.PromptResult, error) {
			return fastmcp.PromptResult{Meta: json.RawMessage(`"x"`)}, nil
		}, nil)
	}}
}

// vectorRequests returns the request lines of every vector, placeholders left in, for seeding
// fuzz targets.
func vectorRequests(t testing.TB) [][]byte {
	var out [][]byte
	for _, v := range LoadVectors(t, filepath.Join("testdata", "vectors")) {
		for _, st := range v.Steps {
			out = append(out, []byte(st.Request))
		}
	}
	slices.SortFunc(out, bytes.Compare)
	return slices.CompactFunc(out, bytes.Equal)
}
