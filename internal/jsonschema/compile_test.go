package jsonschema

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
	}{
		{"echo", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`},
		{"true", `true`},
		{"empty", `{}`},
		{"explicit 2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"a":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/a"}}}`},
		{"in-document ref", `{"type":"object","$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}`},
		{"anchor ref", `{"type":"object","$defs":{"s":{"$anchor":"str","type":"string"}},"properties":{"a":{"$ref":"#str"}}}`},
		{"embedded $id ref", `{"$id":"https://example.com/root","type":"object","$defs":{"s":{"$id":"https://example.com/s","type":"string"}},"properties":{"a":{"$ref":"https://example.com/s"}}}`},
		{"relative $id ref", `{"$id":"https://example.com/dir/root","$defs":{"s":{"$id":"s.json","type":"string"}},"properties":{"a":{"$ref":"s.json"}}}`},
		{"recursive via ref", `{"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`},
		{"meta-schema ref", `{"type":"object","properties":{"schema":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`},
		{"unknown keywords", `{"type":"object","x-vendor":{"$ref":"http://example.com/not-a-ref-here"},"properties":{"a":{"type":"string","x-mcp-header":"A"}}}`},
		{"depth at the limit", strings.Repeat(`{"not":`, MaxSchemaDepth-1) + `{}` + strings.Repeat(`}`, MaxSchemaDepth-1)},
		{"size at the limit", `{"description":"` + strings.Repeat("x", MaxSchemaBytes-18) + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.LessOrEqual(t, len(tc.schema), MaxSchemaBytes)
			s, err := Compile([]byte(tc.schema))
			require.NoError(t, err)
			require.NotNil(t, s)
		})
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		want   error
	}{
		{"empty input", ``, ErrInvalidSchema},
		{"not JSON", `{"type":`, ErrInvalidSchema},
		{"trailing data", `{} {}`, ErrInvalidSchema},
		{"not a schema", `42`, ErrInvalidSchema},
		{"array", `[]`, ErrInvalidSchema},
		{"bad type", `{"type":12}`, ErrInvalidSchema},
		{"unknown type name", `{"type":"text"}`, ErrInvalidSchema},
		{"bad required", `{"required":"a"}`, ErrInvalidSchema},
		{"bad properties", `{"properties":[]}`, ErrInvalidSchema},
		{"negative minLength", `{"minLength":-1}`, ErrInvalidSchema},
		{"bad regex", `{"pattern":"(?=a)"}`, ErrInvalidSchema},
		{"missing in-document ref", `{"$ref":"#/$defs/nope"}`, ErrInvalidSchema},
		{"http ref", `{"type":"object","properties":{"a":{"$ref":"http://127.0.0.1:1/schema.json"}}}`, ErrExternalRef},
		{"https ref", `{"$ref":"https://example.com/schema.json"}`, ErrExternalRef},
		{"file ref", `{"$ref":"file:///etc/passwd"}`, ErrExternalRef},
		{"relative ref", `{"$ref":"other.json"}`, ErrExternalRef},
		{"relative ref under $id", `{"$id":"https://example.com/a/root","$ref":"other.json"}`, ErrExternalRef},
		{"unknown $schema", `{"$schema":"https://example.com/my-meta"}`, ErrExternalRef},
		{"dynamicRef", `{"$dynamicRef":"https://example.com/x#meta"}`, ErrExternalRef},
		{"too large", `{"description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, ErrLimitExceeded},
		{"too deep", strings.Repeat(`[`, MaxSchemaDepth+1) + strings.Repeat(`]`, MaxSchemaDepth+1), ErrLimitExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Compile([]byte(tc.schema))
			require.ErrorIs(t, err, tc.want)
			assert.Nil(t, s)
			t.Log(err)
		})
	}
}

// TestCompileNeverFetches serves a schema on a loopback listener and checks that Compile does not
// even connect to it.
func TestCompileNeverFetches(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var hits atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"type":"string"}`))
	})}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })

	url := "http://" + ln.Addr().String() + "/schema.json"
	_, err = Compile([]byte(`{"type":"object","properties":{"a":{"$ref":"` + url + `"}}}`))
	require.ErrorIs(t, err, ErrExternalRef)
	assert.Contains(t, err.Error(), url)
	assert.Zero(t, hits.Load())
}

func TestLimitError(t *testing.T) {
	err := error(&LimitError{What: "schema size in bytes", Limit: MaxSchemaBytes})
	assert.ErrorIs(t, err, ErrLimitExceeded)
	assert.NotErrorIs(t, err, ErrInvalidSchema)
	assert.Equal(t, "jsonschema: schema size in bytes exceeds the limit of 65536", err.Error())
}

func TestJSONDepth(t *testing.T) {
	for in, want := range map[string]int{
		`1`:                    0,
		`{}`:                   1,
		`[[],[[]]]`:            3,
		`{"a":"[[[{{{"}`:       1,
		`{"a\"[":["\\",{}]}`:   3,
		`[{"a":[{"b":[]}]}]`:   5,
		`"\\\"[[["`:            0,
		`{"x":[1,2,{"y":{}}]}`: 4,
	} {
		assert.Equal(t, want, jsonDepth([]byte(in)), in)
	}
}

func TestCheckObjectRoot(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   error
	}{
		{echoSchema, nil},
		{`{"type":"object"}`, nil},
		{` { "type" : "object" , "anyOf":[{}] } `, nil},
		{`{}`, ErrNotObject},
		{`{"type":"string"}`, ErrNotObject},
		{`{"type":["object"]}`, ErrNotObject},
		{`{"type":"\u006fbject"}`, nil},
		{`{"properties":{}}`, ErrNotObject},
		{`true`, ErrInvalidSchema},
		{`null`, ErrInvalidSchema},
		{`[]`, ErrInvalidSchema},
		{`{`, ErrInvalidSchema},
	} {
		err := CheckObjectRoot([]byte(tc.schema))
		if tc.want == nil {
			assert.NoError(t, err, tc.schema)
		} else {
			assert.ErrorIs(t, err, tc.want, tc.schema)
		}
	}
}
