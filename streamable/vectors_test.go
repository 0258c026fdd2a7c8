package streamable

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

// TestVectors runs every wire vector (fastmcp/testdata/vectors, format in internal/wirevector)
// through every HTTP stack: the native listener (New and Serve on a loopback port), the
// net/http adapter (NewHandler in an httptest.Server) and the mounted handler. Each request
// line is one POST with the headers its client sends (stepHeaders: a 2026-07-28 client's
// derived from the body, or an initialize-era client's, the step's version alone); the reply
// is the JSON body, or the one response event of an event stream, and the notifications are
// the events before it. The status of every answer is checked against the mapping the transports
// document (vectorStatus), so a status regression fails here too. The steps HTTP answers
// differently are listed, with the reason, in httpReplies and httpStatuses.
func TestVectors(t *testing.T) {
	vectors := wirevector.Load(t, filepath.Join("..", "fastmcp", "testdata", "vectors"))
	steps := map[string]bool{}
	for _, v := range vectors {
		for _, st := range v.Steps {
			steps[v.File+":"+strconv.Itoa(st.Line)] = true
		}
	}
	for where := range httpStatuses {
		require.True(t, steps[where], "httpStatuses names %s, which is not a step's request", where)
	}
	for _, stack := range httpStacks {
		t.Run(stack.name, func(t *testing.T) {
			for _, v := range vectors {
				t.Run(strings.TrimSuffix(v.File, ".txtar"), func(t *testing.T) {
					s, fx := wirevector.NewFixtureServer(t, v.Setup)
					url, client := stack.start(t, s)
					x := &vectorClient{t: t, v: v, url: url, client: client, core: s, fx: fx, params: headerParams(t, s)}
					wirevector.RunSteps(t, v, x.exchange, wirevector.Options{Replace: httpReplies[v.File]})
				})
			}
		})
	}
	t.Logf("%d vector steps through each stack", len(steps))
}

// httpStacks serve a core over HTTP for the duration of a test, and return the endpoint's
// URL and a client for it (no compression, vectorGuard as its timeout).
var httpStacks = []struct {
	name  string
	start func(t *testing.T, core *fastmcp.Server) (url string, client *http.Client)
}{
	{"native", func(t *testing.T, core *fastmcp.Server) (string, *http.Client) {
		s := startServer(t, core, ListenerConfig{Config: Config{Logger: discardLogger}})
		client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: vectorGuard}
		t.Cleanup(client.CloseIdleConnections)
		return s.URL(), client
	}},
	{"nethttp", func(t *testing.T, core *fastmcp.Server) (string, *http.Client) {
		ts := newStdServer(t, core, Config{Logger: discardLogger}, nil)
		client := ts.Client()
		client.Transport.(*http.Transport).DisableCompression = true
		client.Timeout = vectorGuard
		return ts.URL + "/mcp", client
	}},
	{"fasthttp", func(t *testing.T, core *fastmcp.Server) (string, *http.Client) {
		addr, _ := startMounted(t, core, Config{Logger: discardLogger})
		client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: vectorGuard}
		t.Cleanup(client.CloseIdleConnections)
		return "http://" + addr + "/mcp", client
	}},
}

// discardLogger keeps the panics and faults the fixtures provoke out of the test output.
var discardLogger = slog.New(slog.DiscardHandler)

// httpReplies are the steps that the HTTP layer answers itself, by design, before the core
// sees them: the header rules refuse a request whose body holds no value a client could
// mirror (Mcp-Name for a name or uri that is absent, MCP-Protocol-Version for a version that
// is not a string) with 400 -32020, where the core answers -32602. Keys are the lines of the
// request markers.
var httpReplies = map[string]map[int]wirevector.Replacement{
	"meta.txtar": {33: {
		Reply:    `{"jsonrpc":"2.0","id":6,"error":{"code":-32020,"message":"MCP-Protocol-Version header does not match the request metadata"}}`,
		ReplyDef: "HeaderMismatchError",
		Why:      "protocolVersion is the number 20260728: no header can equal it (the client sends its own version)",
	}},
	"prompts.txtar": {46: {
		Reply:    `{"jsonrpc":"2.0","id":10,"error":{"code":-32020,"message":"Mcp-Name header is missing or repeated"}}`,
		ReplyDef: "HeaderMismatchError",
		Why:      "prompts/get without params.name: a client has no Mcp-Name to send",
	}},
	"resources.txtar": {
		58: {
			Reply:    `{"jsonrpc":"2.0","id":13,"error":{"code":-32020,"message":"Mcp-Name header is missing or repeated"}}`,
			ReplyDef: "HeaderMismatchError",
			Why:      "resources/read with name instead of uri: a client has no Mcp-Name to send",
		},
		62: {
			Reply:    `{"jsonrpc":"2.0","id":14,"error":{"code":-32020,"message":"Mcp-Name header is missing or repeated"}}`,
			ReplyDef: "HeaderMismatchError",
			Why:      "resources/read with the uri 5: no header can equal a number",
		},
	},
	"legacy_initialize.txtar": {110: {
		Reply:    `{"jsonrpc":"2.0","id":22,"error":{"code":-32020,"message":"MCP-Protocol-Version header does not match the request metadata"}}`,
		ReplyDef: "HeaderMismatchError",
		Why:      "modern _meta makes the request modern, and over HTTP its header must then name the same version: 2025-11-25 does not",
	}},
	"legacy_tools.txtar": {79: {
		Reply:    `{"jsonrpc":"2.0","id":14,"error":{"code":-32020,"message":"MCP-Protocol-Version header does not match the request metadata"}}`,
		ReplyDef: "HeaderMismatchError",
		Why:      "modern _meta makes the request modern, and over HTTP its header must then name the same version: 2025-11-25 does not",
	}},
	"tools_call.txtar": {
		56: {
			Reply:    `{"jsonrpc":"2.0","id":12,"error":{"code":-32020,"message":"Mcp-Name header is missing or repeated"}}`,
			ReplyDef: "HeaderMismatchError",
			Why:      "tools/call without params.name: a client has no Mcp-Name to send",
		},
		64: {
			Reply:    `{"jsonrpc":"2.0","id":14,"error":{"code":-32020,"message":"Mcp-Name header is missing or repeated"}}`,
			ReplyDef: "HeaderMismatchError",
			Why:      "tools/call with the name 7: no header can equal a number",
		},
	},
}

// httpStatuses are the steps whose status differs from vectorStatus's mapping, keyed by
// "file:line" of the request marker: the status the transports send, and why.
var httpStatuses = map[string]struct {
	status int
	why    string
}{}

// vectorGuard bounds one exchange: a guard against a hang, not a wait for an event.
const vectorGuard = 10 * time.Second

// vectorClient sends vector requests to one endpoint as a 2026-07-28 client would.
type vectorClient struct {
	t      *testing.T
	v      *wirevector.Vector
	step   int // of v, the one being exchanged (Run exchanges every step once, in order)
	url    string
	client *http.Client
	core   *fastmcp.Server
	fx     *wirevector.Fixture
	params map[string][]headerParam // the x-mcp-header arguments of each listed tool
}

// exchange POSTs one request line and returns the reply and the notifications, telling the
// fixture of each notification as its event arrives (a listen stream goes on only then).
func (x *vectorClient) exchange(st wirevector.Step, body []byte) ([]byte, [][]byte) {
	t := x.t
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, x.url, bytes.NewReader(body))
	require.NoError(t, err)
	legacy := x.v.Legacy() && !hasModernMeta(body)
	req.Header = stepHeaders(st, body, legacy, x.params)
	resp, err := x.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var reply []byte
	var notes [][]byte
	switch {
	case media == "text/event-stream":
		err := readEvents(resp.Body, func(data []byte) {
			switch {
			case isNotification(data):
				require.Nil(t, reply, "a notification after the response event:\n%s", data)
				notes = append(notes, data)
				if x.fx.OnNotify != nil {
					x.fx.OnNotify(x.core, len(notes), data)
				}
			case reply != nil:
				t.Fatalf("a second response event:\n%s", data)
			default:
				reply = data
			}
		})
		require.NoError(t, err, "reading the event stream of %s", body)
		require.NotNil(t, reply, "the event stream of %s ended without a response", body)
	default:
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		if resp.StatusCode == http.StatusAccepted {
			require.Empty(t, b, "a 202 has no body")
			break
		}
		require.Equal(t, "application/json", media, "the Content-Type of %s", b)
		reply = b
	}
	where := x.v.File + ":" + strconv.Itoa(x.v.Steps[x.step].Line)
	x.step++
	want := http.StatusOK // an event stream's status goes out with its first event
	switch {
	case len(notes) > 0:
	case legacy:
		want = legacyVectorStatus(t, reply)
	default:
		want = vectorStatus(t, reply)
	}
	if e, ok := httpStatuses[where]; ok {
		t.Logf("%s: status %d instead of %d: %s", where, e.status, want, e.why)
		want = e.status
	}
	if resp.StatusCode != want {
		t.Errorf("%s: status %d (%s), want %d for the reply\n%s", where, resp.StatusCode, media, want, reply)
	}
	return reply, notes
}

// vectorStatus is the HTTP status the transports document for a reply sent as the whole
// answer (transport.Rules.HTTPStatus and the streamable package doc): 202 for nothing, 200 for a
// result, and by error code: 400 for parse errors, invalid requests and the -32020..-32022
// admission errors, 404 for an unknown method, 200 for the rest, but -32602 splits: the
// admission failures (missing or invalid _meta, a bad logLevel, the decoder's params rules)
// are 400 and every other invalid params (a handler's, an unknown tool) is 200.
func vectorStatus(t *testing.T, reply []byte) int {
	t.Helper()
	if reply == nil {
		return http.StatusAccepted
	}
	var r struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(reply, &r), "%s", reply)
	if r.Error == nil {
		return http.StatusOK
	}
	if r.Error.Code == -32603 && r.Error.Message == "Server is shutting down" {
		return http.StatusServiceUnavailable
	}
	switch r.Error.Code {
	case -32700, -32600, -32020, -32021, -32022:
		return http.StatusBadRequest
	case -32601:
		return http.StatusNotFound
	case -32602:
		for _, prefix := range admissionInvalidParams {
			if strings.HasPrefix(r.Error.Message, prefix) {
				return http.StatusBadRequest
			}
		}
	}
	return http.StatusOK
}

// legacyVectorStatus is the status of an initialize-era client's reply sent as the whole
// answer (the package doc's "Initialize-era dialects"): 202 for nothing, and for an error 400
// when the request never reached a dialect (a parse error, an invalid envelope, the version
// header refused: -32700, -32600 before classification, -32020, -32022, or no version at
// all), 503 for the shutdown refusal, 200 for every other error and for a result.
func legacyVectorStatus(t *testing.T, reply []byte) int {
	t.Helper()
	if reply == nil {
		return http.StatusAccepted
	}
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(reply, &r), "%s", reply)
	switch {
	case r.Error == nil:
		return http.StatusOK
	case r.Error.Message == "Server is shutting down":
		return http.StatusServiceUnavailable
	case r.Error.Code == -32700, r.Error.Code == -32600 && string(r.ID) == "null",
		r.Error.Code == -32020, r.Error.Code == -32022,
		r.Error.Code == -32602 && strings.HasPrefix(r.Error.Message, "Missing required request metadata:"):
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// admissionInvalidParams are the -32602 messages of admission failures, answered with 400.
var admissionInvalidParams = []string{
	"Missing required request metadata:",
	"_meta contains an invalid key or value",
	"Invalid log level",
	"Invalid params: params must be an object",
	"Invalid params: duplicate key in params",
	"Invalid params: progressToken",
}

// readEvents reads a text/event-stream body to its end, calling fn with the data of each
// event (data lines joined by LF); comments and other fields are skipped. An event cut off
// by the end of the stream is an error.
func readEvents(r io.Reader, fn func(data []byte)) error {
	br := bufio.NewReader(r)
	var data []byte
	pending := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && line == "" && !pending {
				return nil
			}
			if errors.Is(err, io.EOF) {
				return errors.New("the stream ended inside an event")
			}
			return err
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch {
		case line == "":
			if pending {
				fn(data)
			}
			data, pending = nil, false
		case field == "": // a comment (keepalive)
		case field == "data":
			if pending {
				data = append(data, '\n')
			}
			data, pending = append(data, value...), true
		}
	}
}

// isNotification reports whether a message is a notification (it names a method).
func isNotification(msg []byte) bool {
	var env map[string]json.RawMessage
	if json.Unmarshal(msg, &env) != nil {
		return false
	}
	_, ok := env["method"]
	return ok
}

// The _meta key of the protocol version a client mirrors, and the version the test client
// speaks.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	clientVersion       = "2026-07-28"
)

// vectorHeaders returns the headers a correct 2026-07-28 client sends with body, derived from
// the body the way such a client derives them from the request it builds:
//   - Content-Type: application/json and Accept: application/json, text/event-stream;
//   - MCP-Protocol-Version: params._meta's protocolVersion when it is a string, else the
//     client's own version (a client speaking 2026-07-28 always sends it, as the conformance
//     suite does with a request that lacks _meta);
//   - Mcp-Method: the method, when it is a string;
//   - Mcp-Name: params.name (tools/call, prompts/get), params.uri (resources/read) or
//     params.taskId (the tasks extension's methods), when a string;
//   - Mcp-Param-{Name}: for tools/call, each x-mcp-header argument of the tool (as listed)
//     that the arguments carry and that is not null: a string as is, a number or a boolean
//     as its literal.
//
// Name and parameter values that are not plain visible ASCII go in the =?base64?…?= form.
// The body is parsed best effort, member by member, so a malformed line (the vectors for
// parse errors) gets the headers of whatever could be read.
func vectorHeaders(body []byte, params map[string][]headerParam) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	env := readMembers(body)
	var p struct {
		Meta      map[string]json.RawMessage `json:"_meta"`
		Name      json.RawMessage            `json:"name"`
		URI       json.RawMessage            `json:"uri"`
		TaskID    json.RawMessage            `json:"taskId"`
		Arguments json.RawMessage            `json:"arguments"`
	}
	_ = json.Unmarshal(env["params"], &p)
	version := clientVersion
	if v, ok := jsonString(p.Meta[metaProtocolVersion]); ok {
		version = v
	}
	h.Set(HeaderProtocolVersion, version)
	method, ok := jsonString(env["method"])
	if !ok {
		return h
	}
	h.Set(HeaderMethod, method)
	var named json.RawMessage
	switch method {
	case "tools/call", "prompts/get":
		named = p.Name
	case "resources/read":
		named = p.URI
	case "tasks/get", "tasks/update", "tasks/cancel":
		named = p.TaskID
	}
	name, ok := jsonString(named)
	if ok {
		h.Set(HeaderName, headerValue(name))
	}
	if method != "tools/call" || !ok {
		return h
	}
	for _, hp := range params[name] {
		if v, ok := argument(p.Arguments, hp.Path); ok {
			h.Set(HeaderParamPrefix+hp.Name, v)
		}
	}
	return h
}

// stepHeaders returns the headers the client of a vector step sends with body: an
// initialize-era client (legacy) sends the media types and, when the step carries one, its
// version in MCP-Protocol-Version, and nothing it would mirror; a 2026-07-28 client sends
// vectorHeaders, with the step's version, when it has one, in MCP-Protocol-Version.
func stepHeaders(st wirevector.Step, body []byte, legacy bool, params map[string][]headerParam) http.Header {
	h := vectorHeaders(body, params)
	if legacy {
		h = http.Header{}
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
	}
	if st.HasVersion {
		h.Set(HeaderProtocolVersion, st.Version)
	}
	return h
}

// hasModernMeta reports whether a request body names a protocol version in params._meta.
func hasModernMeta(body []byte) bool {
	var env struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &env)
	_, ok := env.Params.Meta[metaProtocolVersion]
	return ok
}

// readMembers reads the top-level members of a JSON object one by one, stopping at the first
// that does not parse (a later duplicate key wins, as in encoding/json).
func readMembers(body []byte) map[string]json.RawMessage {
	members := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return members
	}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		members[key] = v
	}
	return members
}

// argument returns the header value of the argument at path, if present and not null.
func argument(args json.RawMessage, path []string) (string, bool) {
	v := args
	for _, key := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil {
			return "", false
		}
		if v = obj[key]; v == nil {
			return "", false
		}
	}
	if s, ok := jsonString(v); ok {
		return headerValue(s), true
	}
	switch lit := string(bytes.TrimSpace(v)); {
	case lit == "true", lit == "false":
		return lit, true
	case lit != "" && (lit[0] == '-' || lit[0] >= '0' && lit[0] <= '9'):
		return lit, true
	}
	return "", false // null, an object or an array: not mirrored
}

// headerValue returns s as a header value: literal when it is visible ASCII (inner spaces
// allowed) and does not look like the sentinel, else =?base64?<base64 of its UTF-8>?=.
func headerValue(s string) string {
	plain := s != "" && s[0] != ' ' && s[len(s)-1] != ' ' &&
		!(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// jsonString returns the value of a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// headerParam is an x-mcp-header annotation of a tool's input schema, as a client reads it
// from tools/list.
type headerParam struct {
	Name string   // the header is Mcp-Param-{Name}
	Path []string // the chain of properties keys from the schema's root
}

// headerParams lists the tools of core (every page) as a client would before calling them and
// collects the x-mcp-header annotations of their input schemas: on integer, string and
// boolean properties reached through properties keys only, as the specification allows.
func headerParams(t *testing.T, core *fastmcp.Server) map[string][]headerParam {
	t.Helper()
	out := map[string][]headerParam{}
	cursor := ""
	for range 100 {
		params := `"_meta":{"` + metaProtocolVersion + `":"` + clientVersion + `","io.modelcontextprotocol/clientCapabilities":{}}`
		if cursor != "" {
			c, _ := json.Marshal(cursor)
			params += `,"cursor":` + string(c)
		}
		ctx, cancel := context.WithTimeout(context.Background(), vectorGuard)
		reply := core.Dispatch(ctx, []byte(`{"jsonrpc":"2.0","id":"catalog","method":"tools/list","params":{`+params+`}}`), discardSink{})
		cancel()
		var r struct {
			Result *struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(reply, &r), "%s", reply)
		if r.Result == nil {
			return out // the fixture serves no tools
		}
		for _, tool := range r.Result.Tools {
			out[tool.Name] = schemaHeaders(tool.InputSchema, nil)
		}
		if cursor = r.Result.NextCursor; cursor == "" {
			return out
		}
	}
	t.Fatal("tools/list does not end")
	return nil
}

// schemaHeaders collects the x-mcp-header annotations under schema's properties.
func schemaHeaders(schema json.RawMessage, path []string) []headerParam {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []headerParam
	for key, prop := range s.Properties {
		p := append(append([]string(nil), path...), key)
		var a struct {
			Header string `json:"x-mcp-header"`
			Type   string `json:"type"`
		}
		if json.Unmarshal(prop, &a) == nil && a.Header != "" {
			switch a.Type {
			case "integer", "string", "boolean":
				out = append(out, headerParam{Name: a.Header, Path: p})
			}
		}
		out = append(out, schemaHeaders(prop, p)...)
	}
	return out
}

type discardSink struct{}

func (discardSink) Notify(context.Context, []byte) error { return nil }

// The catalog a client reads: every page of tools/list, the x-mcp-header annotations only where
// the specification allows them.
func TestVectorHeaderParams(t *testing.T) {
	s, _ := wirevector.NewFixtureServer(t, "echo")
	params := headerParams(t, s)
	require.Len(t, params, 14)
	require.Equal(t, []headerParam{{Name: "Phone", Path: []string{"phone"}}}, params["json_schema_2020_12_tool"])
	s, _ = wirevector.NewFixtureServer(t, "pages") // five tools, two a page
	require.Len(t, headerParams(t, s), 5)
	got := schemaHeaders(json.RawMessage(`{"type":"object","properties":{
		"a":{"type":"string","x-mcp-header":"A"},
		"f":{"type":"number","x-mcp-header":"F"},
		"o":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}},
		"l":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"X"}}}}}}`), nil)
	slices.SortFunc(got, func(a, b headerParam) int { return strings.Compare(a.Name, b.Name) })
	require.Equal(t, []headerParam{{Name: "A", Path: []string{"a"}}, {Name: "N", Path: []string{"o", "n"}}}, got)
}

// TestVectorHeaders pins the client side of the exchange: the headers derived from a body.
func TestVectorHeaders(t *testing.T) {
	params := map[string][]headerParam{"t": {{Name: "Region", Path: []string{"region"}}, {Name: "N", Path: []string{"o", "n"}}, {Name: "Off", Path: []string{"off"}}}}
	for _, tc := range []struct {
		name, body string
		want       map[string]string
	}{
		{"tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"region":"Hello, 世界","o":{"n":42},"off":null},` + meta + `}}`,
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "t", "Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?=", "Mcp-Param-N": "42"}},
		{"resources/read", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":" test://a",` + meta + `}}`,
			map[string]string{"Mcp-Method": "resources/read", "Mcp-Name": "=?base64?IHRlc3Q6Ly9h?="}},
		{"other version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}}`,
			map[string]string{"MCP-Protocol-Version": "1900-01-01", "Mcp-Method": "tools/list"}},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tools/list"`, map[string]string{"Mcp-Method": "tools/list"}},
		{"not an object", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := http.Header{}
			want.Set("Content-Type", "application/json")
			want.Set("Accept", "application/json, text/event-stream")
			want.Set("MCP-Protocol-Version", clientVersion)
			for k, v := range tc.want {
				want.Set(k, v)
			}
			require.Equal(t, want, vectorHeaders([]byte(tc.body), params))
		})
	}
}

// TestListenAdmissionRefusal: a subscriptions/listen request that the core refuses at
// admission (required _meta missing, -32602; an unsupported protocol version, -32022) is
// answered 400 with a JSON body, as every other request is (the specification: "on HTTP the
// status MUST be 400"), never as a 200 event stream carrying the error.
func TestListenAdmissionRefusal(t *testing.T) {
	for _, stack := range httpStacks {
		t.Run(stack.name, func(t *testing.T) {
			url, client := stack.start(t, newCore(t))
			for _, tc := range []struct{ body, reply string }{
				{`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`,
					`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Missing required request metadata: io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"}}`},
				{`{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
					`{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"1900-01-01"}}}`},
			} {
				req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(tc.body))
				require.NoError(t, err)
				req.Header = vectorHeaders([]byte(tc.body), nil)
				resp, err := client.Do(req)
				require.NoError(t, err)
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				require.NoError(t, err)
				assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s\n%s", tc.body, b)
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "%s\n%s", tc.body, b)
				assert.Equal(t, tc.reply, string(b))
			}
		})
	}
}
