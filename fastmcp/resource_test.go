package fastmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// Helpers of the resource, template, prompt and completion tests.

// compReq is a request with id 1, the given params members (without braces) and the default
// _meta.
func compReq(method, params string) string {
	if params != "" {
		params += ","
	}
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + meta + `}}`
}

// compOK is the success response to id 1 whose result has these members, then the server's
// _meta.
func compOK(members string) string {
	return `{"jsonrpc":"2.0","id":1,"result":{` + members + `,` + serverInfoMeta + `}}`
}

// compErr is the error response to id 1; data is a JSON value or "".
func compErr(code int, message, data string) string {
	s := `{"jsonrpc":"2.0","id":1,"error":{"code":` + strconv.Itoa(code) + `,"message":"` + message + `"`
	if data != "" {
		s += `,"data":` + data
	}
	return s + `}}`
}

// requireWire validates a reply against the official schema: an error response and its error
// object, or the <def>Response and its result against def (or InputRequiredResult).
func requireWire(t testing.TB, def, reply string) {
	t.Helper()
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(reply), &env), reply)
	if e, ok := env["error"]; ok {
		wireschema.RequireValid(t, "JSONRPCErrorResponse", []byte(reply))
		var code struct{ Code int }
		require.NoError(t, json.Unmarshal(e, &code))
		switch code.Code {
		case -32602:
			wireschema.RequireValid(t, "InvalidParamsError", e)
		case -32603:
			wireschema.RequireValid(t, "InternalError", e)
		case -32601:
			wireschema.RequireValid(t, "MethodNotFoundError", e)
		case -32021:
			wireschema.RequireValid(t, "MissingRequiredClientCapabilityError", []byte(reply))
		default:
			wireschema.RequireValid(t, "Error", e)
		}
		return
	}
	wireschema.RequireValid(t, def+"Response", []byte(reply))
	var rt struct{ ResultType string }
	require.NoError(t, json.Unmarshal(env["result"], &rt))
	if rt.ResultType == "input_required" {
		wireschema.RequireValid(t, "InputRequiredResult", env["result"])
		return
	}
	wireschema.RequireValid(t, def, env["result"])
}

// logBuffer is a concurrency-safe buffer for a test server's log.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newLoggedServer is newTestServer with the server's log captured.
func newLoggedServer(t testing.TB, cfg *Config) (*Server, *logBuffer) {
	t.Helper()
	var c Config
	if cfg != nil {
		c = *cfg
	}
	log := &logBuffer{}
	c.Logger = slog.New(slog.NewTextHandler(log, nil))
	return newTestServer(t, &c), log
}

// resultMember returns one member of a success reply's result as a string.
func resultMember(t testing.TB, reply, key string) string {
	t.Helper()
	var env struct {
		Result map[string]json.RawMessage
	}
	require.NoError(t, json.Unmarshal([]byte(reply), &env), reply)
	raw, ok := env.Result[key]
	require.True(t, ok, "no %s in %s", key, reply)
	var s string
	require.NoError(t, json.Unmarshal(raw, &s))
	return s
}

// testPNG is the first bytes of a PNG file: base64 "iVBORw==".
var testPNG = []byte{0x89, 'P', 'N', 'G'}

// addTestResources registers the resources and the template of the conformance fixtures.
func addTestResources(s *Server) {
	s.AddResource(Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MimeType: "text/plain"},
		func(context.Context, *Request, string) ([]ResourceContents, error) {
			return []ResourceContents{{Text: "This is the content of the static text resource."}}, nil
		})
	s.AddResource(Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource (PNG)", MimeType: "image/png"},
		func(context.Context, *Request, string) ([]ResourceContents, error) {
			return []ResourceContents{{Blob: testPNG}}, nil
		})
	s.AddResourceTemplate(ResourceTemplate{
		URITemplate: "test://template/{id}/data", Name: "template", Description: "Data by id", MimeType: "application/json",
		Complete: func(_ context.Context, _ *Request, _, value string, _ map[string]string) (Completion, error) {
			return CompletePrefix([]string{"123", "124", "200"}, value), nil
		},
	}, func(_ context.Context, _ *Request, _ string, vars map[string]string) ([]ResourceContents, error) {
		return []ResourceContents{{Text: `{"id":` + strconv.Quote(vars["id"]) + `}`}}, nil
	})
}

func textContents(text string) ResourceHandler {
	return func(context.Context, *Request, string) ([]ResourceContents, error) {
		return []ResourceContents{{Text: text}}, nil
	}
}

func TestResourcesList(t *testing.T) {
	tests := []struct {
		name  string
		cfg   *Config
		setup func(*Server)
		want  string
	}{{
		name:  "conformance fixtures, sorted by URI",
		setup: addTestResources,
		want: compOK(`"resultType":"complete","resources":[` +
			`{"uri":"test://static-binary","name":"static-binary","description":"A static binary resource (PNG)","mimeType":"image/png"},` +
			`{"uri":"test://static-text","name":"static-text","description":"A static text resource","mimeType":"text/plain"}` +
			`],"ttlMs":0,"cacheScope":"private"`),
	}, {
		name: "every member, cache hint from the config",
		cfg:  &Config{ResourcesCache: CacheHint{TTL: time.Minute, Scope: CachePublic}},
		setup: func(s *Server) {
			half := 0.5
			s.AddResource(Resource{
				URI: "file:///a.txt", Name: "a", Title: "A file", Description: "Some \"text\"", MimeType: "text/plain",
				Size:        42,
				Annotations: &Annotations{Audience: []Role{RoleUser, RoleAssistant}, Priority: &half, LastModified: "2025-01-12T15:00:58Z"},
				Icons:       []Icon{{Src: "https://example.com/i.png", MimeType: "image/png", Sizes: []string{"48x48"}}},
				Meta:        json.RawMessage(`{ "vendor.example/k" : [1, 2] }`),
			}, textContents("x"))
		},
		want: compOK(`"resultType":"complete","resources":[` +
			`{"uri":"file:///a.txt","name":"a","title":"A file","description":"Some \"text\"","mimeType":"text/plain","size":42,` +
			`"annotations":{"audience":["user","assistant"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"},` +
			`"icons":[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"]}],` +
			`"_meta":{"vendor.example/k":[1,2]}}` +
			`],"ttlMs":60000,"cacheScope":"public"`),
	}, {
		name: "templates are not resources",
		setup: func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "x://{a}", Name: "a"},
				func(context.Context, *Request, string, map[string]string) ([]ResourceContents, error) {
					return nil, nil
				})
		},
		want: compOK(`"resultType":"complete","resources":[],"ttlMs":0,"cacheScope":"private"`),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, tc.cfg)
			tc.setup(s)
			got := dispatch(t, s, compReq("resources/list", ""))
			assert.Equal(t, tc.want, got)
			requireWire(t, "ListResourcesResult", got)
			// The first page is cached per catalog: a second call answers the same bytes.
			assert.Equal(t, tc.want, dispatch(t, s, compReq("resources/list", "")))
		})
	}
}

func TestResourceTemplatesList(t *testing.T) {
	s := newTestServer(t, &Config{ResourcesCache: CacheHint{TTL: 1500 * time.Millisecond}})
	addTestResources(s)
	s.AddResourceTemplate(ResourceTemplate{
		URITemplate: "file:///{name}", Name: "file", Title: "Files",
		Annotations: &Annotations{Audience: []Role{RoleAssistant}},
		Icons:       []Icon{{Src: "data:image/png;base64,AA==", Theme: "dark"}},
		Meta:        json.RawMessage(`{"x":true}`),
	}, func(context.Context, *Request, string, map[string]string) ([]ResourceContents, error) {
		return nil, nil
	})

	got := dispatch(t, s, compReq("resources/templates/list", ""))
	assert.Equal(t, compOK(`"resultType":"complete","resourceTemplates":[`+
		`{"uriTemplate":"file:///{name}","name":"file","title":"Files","annotations":{"audience":["assistant"]},"icons":[{"src":"data:image/png;base64,AA==","theme":"dark"}],"_meta":{"x":true}},`+
		`{"uriTemplate":"test://template/{id}/data","name":"template","description":"Data by id","mimeType":"application/json"}`+
		`],"ttlMs":1500,"cacheScope":"private"`), got)
	requireWire(t, "ListResourceTemplatesResult", got)
}

func TestResourcesPagination(t *testing.T) {
	s := newTestServer(t, &Config{PageSize: 2})
	for i := 1; i <= 5; i++ {
		n := strconv.Itoa(i)
		s.AddResource(Resource{URI: "test://r" + n, Name: "r" + n}, textContents(n))
	}
	entry := func(n string) string { return `{"uri":"test://r` + n + `","name":"r` + n + `"}` }

	page1 := dispatch(t, s, compReq("resources/list", ""))
	c1 := resultMember(t, page1, "nextCursor")
	assert.Equal(t, compOK(`"resultType":"complete","resources":[`+entry("1")+`,`+entry("2")+`],"nextCursor":"`+c1+`","ttlMs":0,"cacheScope":"private"`), page1)
	requireWire(t, "ListResourcesResult", page1)

	page2 := dispatch(t, s, compReq("resources/list", `"cursor":"`+c1+`"`))
	c2 := resultMember(t, page2, "nextCursor")
	assert.NotEqual(t, c1, c2)
	assert.Equal(t, compOK(`"resultType":"complete","resources":[`+entry("3")+`,`+entry("4")+`],"nextCursor":"`+c2+`","ttlMs":0,"cacheScope":"private"`), page2)
	requireWire(t, "ListResourcesResult", page2)

	page3 := dispatch(t, s, compReq("resources/list", `"cursor":"`+c2+`"`))
	assert.Equal(t, compOK(`"resultType":"complete","resources":[`+entry("5")+`],"ttlMs":0,"cacheScope":"private"`), page3)
	requireWire(t, "ListResourcesResult", page3)

	// A cursor is bound to its method: the same offset is refused by the template list.
	for i := 1; i <= 3; i++ {
		s.AddResourceTemplate(ResourceTemplate{URITemplate: "t" + strconv.Itoa(i) + "://{x}", Name: "t"},
			func(context.Context, *Request, string, map[string]string) ([]ResourceContents, error) {
				return nil, nil
			})
	}
	tpage1 := dispatch(t, s, compReq("resources/templates/list", ""))
	tc1 := resultMember(t, tpage1, "nextCursor")
	invalid := compErr(-32602, "Invalid pagination cursor", "")
	expired := compErr(-32602, "Pagination cursor has expired", "")
	tests := []struct {
		name, method, params, want string
	}{
		{"not base64", "resources/list", `"cursor":"!!"`, invalid},
		{"garbage", "resources/list", `"cursor":"bm9wZQ"`, invalid},
		{"not a string", "resources/list", `"cursor":2`, invalid},
		{"templates cursor on resources", "resources/list", `"cursor":"` + tc1 + `"`, invalid},
		{"resources cursor on templates", "resources/templates/list", `"cursor":"` + c1 + `"`, invalid},
		{"resources cursor on prompts", "prompts/list", `"cursor":"` + c1 + `"`, invalid},
		{"catalog changed since", "resources/list", `"cursor":"` + c1 + `"`, expired},
	}
	s.AddPrompt(Prompt{Name: "p"}, func(context.Context, *Request, map[string]string) (PromptResult, error) {
		return PromptResult{}, nil
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dispatch(t, s, compReq(tc.method, tc.params))
			assert.Equal(t, tc.want, got)
			requireWire(t, "ListResourcesResult", got)
		})
	}
}

func TestResourcesRead(t *testing.T) {
	boom := errors.New("disk on fire")
	tests := []struct {
		name   string
		cfg    *Config
		setup  func(*Server)
		params string
		want   string
		log    string // a substring of the server's log
	}{{
		name:   "text",
		params: `"uri":"test://static-text"`,
		want:   compOK(`"resultType":"complete","contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}],"ttlMs":0,"cacheScope":"private"`),
	}, {
		name:   "blob",
		params: `"uri":"test://static-binary"`,
		want:   compOK(`"resultType":"complete","contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"iVBORw=="}],"ttlMs":0,"cacheScope":"private"`),
	}, {
		name:   "template",
		params: `"uri":"test://template/123/data"`,
		want:   compOK(`"resultType":"complete","contents":[{"uri":"test://template/123/data","mimeType":"application/json","text":"{\"id\":\"123\"}"}],"ttlMs":0,"cacheScope":"private"`),
	}, {
		name:   "template variable percent-decoded",
		params: `"uri":"test://template/a%20%2Fb/data"`,
		want:   compOK(`"resultType":"complete","contents":[{"uri":"test://template/a%20%2Fb/data","mimeType":"application/json","text":"{\"id\":\"a /b\"}"}],"ttlMs":0,"cacheScope":"private"`),
	}, {
		name:   "escaped uri in the request",
		params: `"uri":"test:\/\/static-text"`,
		want:   compOK(`"resultType":"complete","contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}],"ttlMs":0,"cacheScope":"private"`),
	}, {
		name: "an exact resource wins over a template",
		setup: func(s *Server) {
			s.AddResource(Resource{URI: "test://template/fixed/data", Name: "fixed"}, textContents("fixed"))
		},
		params: `"uri":"test://template/fixed/data"`,
		want:   compOK(`"resultType":"complete","contents":[{"uri":"test://template/fixed/data","text":"fixed"}],"ttlMs":0,"cacheScope":"private"`),
	}, {
		name: "several contents with their own uri, mimeType and _meta",
		setup: func(s *Server) {
			s.AddResource(Resource{URI: "dir://d", Name: "d", MimeType: "text/plain"},
				func(context.Context, *Request, string) ([]ResourceContents, error) {
					return []ResourceContents{
						{URI: "dir://d/a", MimeType: "text/markdown", Text: "# a", Meta: json.RawMessage("{\n  \"k\": \"v\"\n}")},
						{URI: "dir://d/b", Text: ""},
						{Blob: []byte{}},
					}, nil
				})
		},
		params: `"uri":"dir://d"`,
		want: compOK(`"resultType":"complete","contents":[` +
			`{"uri":"dir://d/a","mimeType":"text/markdown","text":"# a","_meta":{"k":"v"}},` +
			`{"uri":"dir://d/b","mimeType":"text/plain","text":""},` +
			`{"uri":"dir://d","mimeType":"text/plain","blob":""}],"ttlMs":0,"cacheScope":"private"`),
	}, {
		name: "cache hint: the server's, then the component's",
		cfg:  &Config{ResourcesCache: CacheHint{TTL: time.Second}},
		setup: func(s *Server) {
			s.AddResource(Resource{URI: "c://own", Name: "own", Cache: &CacheHint{TTL: 5 * time.Second, Scope: CachePublic}}, textContents("x"))
		},
		params: `"uri":"c://own"`,
		want:   compOK(`"resultType":"complete","contents":[{"uri":"c://own","text":"x"}],"ttlMs":5000,"cacheScope":"public"`),
	}, {
		name:   "server cache hint",
		cfg:    &Config{ResourcesCache: CacheHint{TTL: time.Second}},
		params: `"uri":"test://static-text"`,
		want:   compOK(`"resultType":"complete","contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}],"ttlMs":1000,"cacheScope":"private"`),
	}, {
		name:   "not found",
		params: `"uri":"test://nonexistent-resource-for-conformance-testing"`,
		want:   compErr(-32602, "Resource not found", `{"uri":"test://nonexistent-resource-for-conformance-testing"}`),
	}, {
		name:   "not found, data escaped",
		params: `"uri":"test://a\"b\u2028"`,
		want:   compErr(-32602, "Resource not found", `{"uri":"test://a\"b\u2028"}`),
	}, {
		name:   "template that does not match",
		params: `"uri":"test://template/1/2/data"`,
		want:   compErr(-32602, "Resource not found", `{"uri":"test://template/1/2/data"}`),
	}, {
		name:   "uri absent",
		params: `"name":"test://static-text"`,
		want:   compErr(-32602, "Invalid params: uri must be an absolute URI", ""),
	}, {
		name:   "uri empty",
		params: `"uri":""`,
		want:   compErr(-32602, "Invalid params: uri must be an absolute URI", ""),
	}, {
		name:   "uri relative",
		params: `"uri":"/static-text"`,
		want:   compErr(-32602, "Invalid params: uri must be an absolute URI", ""),
	}, {
		name:   "uri without anything after the scheme",
		params: `"uri":"test:"`,
		want:   compErr(-32602, "Invalid params: uri must be an absolute URI", ""),
	}, {
		name:   "uri not a string",
		params: `"uri":["test://static-text"]`,
		want:   compErr(-32602, "Invalid params: uri must be an absolute URI", ""),
	}, {
		name: "two templates match",
		setup: func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "multi://{a}/x", Name: "a"}, nil2Template)
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "multi://a/{b}", Name: "b"}, nil2Template)
		},
		params: `"uri":"multi://a/x"`,
		want:   compErr(-32603, "Multiple resource routes matched the requested URI", ""),
		log:    `msg="fastmcp: several resource templates match one URI" uri=multi://a/x template=multi://a/{b} also=multi://{a}/x`,
	}, {
		name: "handler *Error",
		setup: func(s *Server) {
			s.AddResource(Resource{URI: "e://rpc", Name: "e"}, func(context.Context, *Request, string) ([]ResourceContents, error) {
				return nil, NewError(CodeInvalidParams, "Bad resource", json.RawMessage(`{"why":"x"}`))
			})
		},
		params: `"uri":"e://rpc"`,
		want:   compErr(-32602, "Bad resource", `{"why":"x"}`),
	}, {
		name: "handler error",
		setup: func(s *Server) {
			s.AddResource(Resource{URI: "e://plain", Name: "e"}, func(context.Context, *Request, string) ([]ResourceContents, error) {
				return nil, boom
			})
		},
		params: `"uri":"e://plain"`,
		want:   compErr(-32603, "Resource read failed", ""),
		log:    `msg="fastmcp: resource read failed" uri=e://plain err="disk on fire"`,
	}, {
		name: "handler panic",
		setup: func(s *Server) {
			s.AddResource(Resource{URI: "e://panic", Name: "e"}, func(context.Context, *Request, string) ([]ResourceContents, error) {
				panic("oops")
			})
		},
		params: `"uri":"e://panic"`,
		want:   compErr(-32603, "Handler raised an exception", ""),
		log:    `msg="fastmcp: resource handler panicked" uri=e://panic panic=oops stack=`,
	}, {
		name: "template handler panic",
		setup: func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "p://{x}", Name: "p"},
				func(context.Context, *Request, string, map[string]string) ([]ResourceContents, error) { panic(boom) })
		},
		params: `"uri":"p://1"`,
		want:   compErr(-32603, "Handler raised an exception", ""),
	}, {
		name: "empty contents",
		setup: func(s *Server) {
			s.AddResource(Resource{URI: "e://empty", Name: "e"}, func(context.Context, *Request, string) ([]ResourceContents, error) {
				return []ResourceContents{}, nil
			})
		},
		params: `"uri":"e://empty"`,
		want:   compErr(-32603, "Server produced an invalid result", ""),
		log:    `msg="fastmcp: resource handler returned no contents" uri=e://empty`,
	}, {
		name: "contents _meta not an object",
		setup: func(s *Server) {
			s.AddResource(Resource{URI: "e://meta", Name: "e"}, func(context.Context, *Request, string) ([]ResourceContents, error) {
				return []ResourceContents{{Text: "x", Meta: json.RawMessage(`[1]`)}}, nil
			})
		},
		params: `"uri":"e://meta"`,
		want:   compErr(-32603, "Server produced an invalid result", ""),
	}, {
		name: "input required from a read without the client capability",
		setup: func(s *Server) {
			s.AddResource(Resource{URI: "e://ask", Name: "e"}, func(context.Context, *Request, string) ([]ResourceContents, error) {
				return nil, &InputRequired{Requests: map[string]InputRequest{"q": ElicitForm("Sure?", json.RawMessage(`{"type":"object","properties":{}}`))}}
			})
		},
		params: `"uri":"e://ask"`,
		want:   `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}`,
	}, {
		name: "wrapper refusal",
		setup: func(s *Server) {
			s.AddResource(Resource{URI: "w://limited", Name: "w", Wrap: []Wrapper{RateLimit(RateLimitOptions{Limit: 1})}}, textContents("x"))
			dispatch(t, s, compReq("resources/read", `"uri":"w://limited"`)) // spends the window's one call
		},
		params: `"uri":"w://limited"`,
		want:   compErr(-32603, "Component rate limit reached", ""),
	}, {
		name: "wrapper timeout",
		setup: func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "w://slow/{x}", Name: "w", Wrap: []Wrapper{Timeout(TimeoutOptions{Timeout: 10 * time.Millisecond})}},
				func(ctx context.Context, _ *Request, _ string, _ map[string]string) ([]ResourceContents, error) {
					<-ctx.Done()
					return []ResourceContents{{Text: "late"}}, ctx.Err()
				})
		},
		params: `"uri":"w://slow/1"`,
		want:   compErr(-32603, "Component timed out", ""),
	}, {
		name: "wrapped handler that succeeds",
		setup: func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "w://ok/{x}", Name: "w", MimeType: "text/plain",
				Wrap: []Wrapper{Timeout(TimeoutOptions{}), Concurrency(ConcurrencyOptions{Limit: 1})}},
				func(_ context.Context, _ *Request, uri string, vars map[string]string) ([]ResourceContents, error) {
					return []ResourceContents{{Text: uri + " " + vars["x"]}}, nil
				})
		},
		params: `"uri":"w://ok/7"`,
		want:   compOK(`"resultType":"complete","contents":[{"uri":"w://ok/7","mimeType":"text/plain","text":"w://ok/7 7"}],"ttlMs":0,"cacheScope":"private"`),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, log := newLoggedServer(t, tc.cfg)
			addTestResources(s)
			if tc.setup != nil {
				tc.setup(s)
			}
			got := dispatch(t, s, compReq("resources/read", tc.params))
			assert.Equal(t, tc.want, got)
			requireWire(t, "ReadResourceResult", got)
			assert.Contains(t, log.String(), tc.log)
		})
	}
}

func nil2Template(context.Context, *Request, string, map[string]string) ([]ResourceContents, error) {
	return []ResourceContents{{Text: "x"}}, nil
}

func TestResourcesWithoutCapability(t *testing.T) {
	s := newTestServer(t, nil)
	for _, m := range []string{"resources/list", "resources/templates/list", "resources/read"} {
		got := dispatch(t, s, compReq(m, `"uri":"test://static-text"`))
		assert.Equal(t, compErr(-32601, "Method not found", ""), got, m)
	}
}

func TestResourceRegistrationPanics(t *testing.T) {
	noop := textContents("x")
	tests := []struct {
		name string
		add  func(*Server)
		want string
	}{
		{"nil handler", func(s *Server) { s.AddResource(Resource{URI: "a://b", Name: "b"}, nil) }, "fastmcp: resource a://b: nil handler"},
		{"relative URI", func(s *Server) { s.AddResource(Resource{URI: "/b", Name: "b"}, noop) }, "fastmcp: resource /b: the URI must be absolute: a scheme, a colon and more"},
		{"empty URI", func(s *Server) { s.AddResource(Resource{Name: "b"}, noop) }, "fastmcp: resource : the URI must be absolute: a scheme, a colon and more"},
		{"no name", func(s *Server) { s.AddResource(Resource{URI: "a://b"}, noop) }, "fastmcp: resource a://b: a Name is required"},
		{"negative size", func(s *Server) { s.AddResource(Resource{URI: "a://b", Name: "b", Size: -1}, noop) }, "fastmcp: resource a://b: negative size -1"},
		{"duplicate", func(s *Server) {
			s.AddResource(Resource{URI: "a://b", Name: "b"}, noop)
			s.AddResource(Resource{URI: "a://b", Name: "c"}, noop)
		}, "fastmcp: resource a://b is already registered"},
		{"meta not an object", func(s *Server) { s.AddResource(Resource{URI: "a://b", Name: "b", Meta: json.RawMessage(`"x"`)}, noop) }, "fastmcp: resource a://b: meta: not a JSON object"},
		{"meta not JSON", func(s *Server) { s.AddResource(Resource{URI: "a://b", Name: "b", Meta: json.RawMessage(`{`)}, noop) }, "fastmcp: resource a://b: meta: unexpected end of JSON input"},
		{"bad audience", func(s *Server) {
			s.AddResource(Resource{URI: "a://b", Name: "b", Annotations: &Annotations{Audience: []Role{"system"}}}, noop)
		}, `fastmcp: resource a://b: annotations: audience "system" is not "user" or "assistant"`},
		{"bad priority", func(s *Server) {
			p := 1.5
			s.AddResource(Resource{URI: "a://b", Name: "b", Annotations: &Annotations{Priority: &p}}, noop)
		}, "fastmcp: resource a://b: annotations: priority 1.5 is outside [0, 1]"},
		{"negative cache TTL", func(s *Server) {
			s.AddResource(Resource{URI: "a://b", Name: "b", Cache: &CacheHint{TTL: -time.Second}}, noop)
		}, "fastmcp: resource a://b: negative cache TTL -1s"},
		{"bad cache scope", func(s *Server) {
			s.AddResource(Resource{URI: "a://b", Name: "b", Cache: &CacheHint{Scope: "shared"}}, noop)
		}, `fastmcp: resource a://b: cache scope "shared" is not "private" or "public"`},
		{"zero wrapper", func(s *Server) {
			s.AddResource(Resource{URI: "a://b", Name: "b", Wrap: []Wrapper{{}}}, noop)
		}, "fastmcp: resource a://b: wrapper: the zero Wrapper does nothing; use Timeout, Concurrency or RateLimit"},
		{"template nil handler", func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://{b}", Name: "b"}, nil)
		}, "fastmcp: resource template a://{b}: nil handler"},
		{"template syntax", func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://{b", Name: "b"}, nil2Template)
		}, "fastmcp: resource template a://{b: uritemplate: syntax error: unclosed '{' (offset 4)"},
		{"template operator", func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://{+b}", Name: "b"}, nil2Template)
		}, "fastmcp: resource template a://{+b}: uritemplate: unsupported expression: operator '+': reserved expansion {+var} (level 2); only level-1 {var} expressions are supported (offset 5)"},
		{"template without variables", func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://b", Name: "b"}, nil2Template)
		}, "fastmcp: resource template a://b: the template has no variable: register a Resource instead"},
		{"template without a scheme", func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "{scheme}://b", Name: "b"}, nil2Template)
		}, "fastmcp: resource template {scheme}://b: the template must start with a literal URI scheme and a colon"},
		{"template no name", func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://{b}"}, nil2Template)
		}, "fastmcp: resource template a://{b}: a Name is required"},
		{"template duplicate", func(s *Server) {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://{b}", Name: "b"}, nil2Template)
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://{b}", Name: "c"}, nil2Template)
		}, "fastmcp: resource template a://{b} is already registered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newLoggedServer(t, nil)
			require.PanicsWithValue(t, tc.want, func() { tc.add(s) })
			// A refused registration leaves the catalog usable.
			s.AddResource(Resource{URI: "ok://after", Name: "after"}, noop)
			assert.Contains(t, dispatch(t, s, compReq("resources/read", `"uri":"ok://after"`)), `"text":"x"`)
		})
	}
	t.Run("public cache with an authorizer", func(t *testing.T) {
		s := newTestServer(t, &Config{Authorizer: AuthorizerFunc(func(context.Context, Phase, string, Component) error { return nil })})
		require.PanicsWithValue(t, "fastmcp: resource a://b: a public cache scope is refused on a server with an Authorizer", func() {
			s.AddResource(Resource{URI: "a://b", Name: "b", Cache: &CacheHint{Scope: CachePublic}}, noop)
		})
	})
}

// eventRecorder collects the events a server publishes.
type eventRecorder struct {
	mu     sync.Mutex
	events []Event
}

func recordEvents(t *testing.T, s *Server) *eventRecorder {
	rec := &eventRecorder{}
	cancel := s.bus.Subscribe(func(e Event) {
		rec.mu.Lock()
		rec.events = append(rec.events, e)
		rec.mu.Unlock()
	})
	t.Cleanup(cancel)
	return rec
}

func (r *eventRecorder) take() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

func TestComponentsListChanged(t *testing.T) {
	s := newTestServer(t, nil)
	rec := recordEvents(t, s)
	noPrompt := func(context.Context, *Request, map[string]string) (PromptResult, error) { return PromptResult{}, nil }
	resources := []Event{{Kind: ResourcesListChanged}}
	prompts := []Event{{Kind: PromptsListChanged}}

	steps := []struct {
		name string
		do   func()
		want []Event
	}{
		{"add resource", func() { s.AddResource(Resource{URI: "a://1", Name: "1"}, textContents("x")) }, resources},
		{"add template", func() { s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://t/{x}", Name: "t"}, nil2Template) }, resources},
		{"add template with completion", func() {
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://c/{x}", Name: "c", Complete: func(context.Context, *Request, string, string, map[string]string) (Completion, error) {
				return Completion{}, nil
			}}, nil2Template)
		}, resources},
		{"add prompt", func() { s.AddPrompt(Prompt{Name: "p"}, noPrompt) }, prompts},
		{"add prompt with completion", func() {
			s.AddPrompt(Prompt{Name: "q", Complete: func(context.Context, *Request, string, string, map[string]string) (Completion, error) {
				return Completion{}, nil
			}}, noPrompt)
		}, prompts},
		{"refused registration", func() {
			assert.Panics(t, func() { s.AddPrompt(Prompt{Name: "p"}, noPrompt) })
		}, nil},
		{"remove unknown resource", func() { s.RemoveResources("a://nope") }, nil},
		{"remove resource", func() { s.RemoveResources("a://nope", "a://1") }, resources},
		{"remove unknown template", func() { s.RemoveResourceTemplates("a://1") }, nil},
		{"remove template", func() { s.RemoveResourceTemplates("a://t/{x}") }, resources},
		{"remove unknown prompt", func() { s.RemovePrompts("zzz") }, nil},
		{"remove prompts", func() { s.RemovePrompts("p", "q") }, prompts},
	}
	for _, st := range steps {
		st.do()
		assert.Equal(t, st.want, rec.take(), st.name)
	}
	// Removed components are gone from the catalog.
	assert.Equal(t, compErr(-32602, "Resource not found", `{"uri":"a://1"}`), dispatch(t, s, compReq("resources/read", `"uri":"a://1"`)))
	assert.Equal(t, compErr(-32602, "Resource not found", `{"uri":"a://t/1"}`), dispatch(t, s, compReq("resources/read", `"uri":"a://t/1"`)))
	assert.Equal(t, compErr(-32602, "Unknown prompt: p", ""), dispatch(t, s, compReq("prompts/get", `"name":"p"`)))
}

func TestDiscoverComponentCapabilities(t *testing.T) {
	discover := func(s *Server) string { return dispatch(t, s, compReq("server/discover", "")) }
	want := func(caps string) string {
		return compOK(`"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":` + caps + `,"ttlMs":0,"cacheScope":"private"`)
	}
	noPrompt := func(context.Context, *Request, map[string]string) (PromptResult, error) { return PromptResult{}, nil }
	complete := func(context.Context, *Request, string, string, map[string]string) (Completion, error) {
		return Completion{}, nil
	}

	s := newTestServer(t, nil)
	s.AddPrompt(Prompt{Name: "p"}, noPrompt)
	assert.Equal(t, want(`{"logging":{},"prompts":{"listChanged":true}}`), discover(s))
	assert.Equal(t, compErr(-32601, "Method not found", ""), dispatch(t, s, compReq("completion/complete",
		`"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}`)))
	s.AddResource(Resource{URI: "a://b", Name: "b"}, textContents("x"))
	assert.Equal(t, want(`{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true}}`), discover(s))

	s = newTestServer(t, nil)
	s.AddPrompt(Prompt{Name: "p", Complete: complete}, noPrompt)
	assert.Equal(t, want(`{"logging":{},"completions":{},"prompts":{"listChanged":true}}`), discover(s))

	s = newTestServer(t, nil)
	s.AddResourceTemplate(ResourceTemplate{URITemplate: "a://{b}", Name: "b", Complete: complete}, nil2Template)
	got := discover(s)
	assert.Equal(t, want(`{"logging":{},"completions":{},"resources":{"subscribe":true,"listChanged":true}}`), got)
	requireWire(t, "DiscoverResult", got)
}
