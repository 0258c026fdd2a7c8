package fastmcp

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

func TestArgPlanChecking(t *testing.T) {
	type args struct {
		S string  `json:"s"`
		B bool    `json:"b,omitempty"`
		I int     `json:"i,omitempty"`
		F float64 `json:"f,omitempty"`
	}
	plan := newArgPlan(reflect.TypeFor[args]())
	derived, err := jsonschema.Derive[args]()
	require.NoError(t, err)
	for schema, ok := range map[string]bool{
		string(derived):     true,
		`{"type":"object"}`: true,
		`{"type":"object","properties":{"s":{"type":"string"},"b":{"type":"boolean"},"i":{"type":"integer"},"f":{"type":"number"}},"required":["s","b","i","f"],"additionalProperties":false}`: true,
		`{"type":"object","properties":{"s":{},"b":true,"i":{"type":"number"},"x":{}}}`:                                                                                                        true,
		`{"type":"object","properties":{"f":{"type":"integer"}}}`:                                                                                                                              false, // 1.5 decodes
		`{"type":"object","properties":{"s":{"type":"integer"}}}`:                                                                                                                              false,
		`{"type":"object","properties":{"b":{"type":"string"}}}`:                                                                                                                               false,
		`{"type":"object","properties":{"i":{"type":"boolean"}}}`:                                                                                                                              false,
		`{"type":"object","properties":{"x":{"type":"string"}}}`:                                                                                                                               false, // x is not decoded, so not checked
		`{"type":"object","required":["x"]}`:                                                                                                                                                   false,
		`{"type":"object","properties":{"s":{"type":"string"}},"additionalProperties":false}`:                                                                                                  false, // b, i, f are no properties
		`{"type":"object","properties":{"s":{"type":"string","minLength":1}}}`:                                                                                                                 false, // not flat
	} {
		sch, err := jsonschema.Compile([]byte(schema))
		require.NoError(t, err, schema)
		fo, flat := sch.FlatObject()
		assert.Equal(t, ok, flat && plan.checking(fo) != nil, schema)
	}
}

// checkedPair returns two servers with the tool "t" of input In and schema (nil: derived):
// one validating and decoding in one walk, one as before (validate, then decode).
func checkedPair[In any](t testing.TB, schema json.RawMessage) (fused, plain *Server) {
	echo := func(_ context.Context, _ *Request, in In) (ToolResult, error) {
		b, err := json.Marshal(in)
		return ToolResult{Text: string(b)}, err
	}
	fused, plain = newTestServer(t, nil), newTestServer(t, nil)
	AddTool(fused, Tool{Name: "t", InputSchema: schema}, echo)
	AddTool(plain, Tool{Name: "t", InputSchema: schema}, echo)
	require.NotNil(t, fused.catalog.Load().tools["t"].checked)
	plain.catalog.Load().tools["t"].checked = nil // before serving: no request sees the change
	return fused, plain
}

type checkedArgs struct {
	Text  string  `json:"text"`
	Count int8    `json:"count,omitempty"`
	Ratio float64 `json:"ratio,omitempty"`
	On    bool    `json:"on,omitempty"`
}

var checkedSchemas = []json.RawMessage{
	nil, // derived: text required
	json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"},"ratio":{"type":"number"},"on":{"type":"boolean"}},"required":["text","on"],"additionalProperties":false}`),
	json.RawMessage(`{"type":"object","properties":{"text":{},"extra":{}}}`),
}

var checkedArguments = []string{
	`{"text":"hi"}`, `{"text":"hi","on":true}`, `{"text":"a\u00e9\n\"","count":-128,"ratio":0.5,"on":false}`,
	`{}`, `{"on":true}`, `{"text":null}`, `{"text":1}`, `{"text":"x","count":128}`, `{"text":"x","count":1.0}`,
	`{"text":"x","count":1.5}`, `{"text":"x","ratio":"1"}`, `{"text":"x","ratio":-0}`, `{"text":"x","on":1}`,
	`{"text":"x","extra":1}`, `{"text":"x","on":true,"extra":[1]}`, `{"t\u0065xt":"x","on":true}`, `{"Text":"x"}`,
	`{"text":"x","count":null,"on":true}`,
}

// TestCheckedToolAgrees: the one-walk path answers every call byte for byte as validating
// and decoding separately does.
func TestCheckedToolAgrees(t *testing.T) {
	for _, schema := range checkedSchemas {
		fused, plain := checkedPair[checkedArgs](t, schema)
		for _, args := range append(checkedArguments, "null", `"x"`) {
			msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"t","arguments":` + args + `}}`
			assert.Equal(t, dispatch(t, plain, msg), dispatch(t, fused, msg), "%s with %s", args, schema)
		}
	}
}

// FuzzCheckedTool: whatever the arguments, the one-walk path answers as the two-step one.
func FuzzCheckedTool(f *testing.F) {
	for i := range checkedSchemas {
		for _, args := range checkedArguments {
			f.Add(uint8(i), args)
		}
	}
	type pair struct{ fused, plain *Server }
	pairs := make([]pair, len(checkedSchemas))
	for i, schema := range checkedSchemas {
		fused, plain := checkedPair[checkedArgs](f, schema)
		pairs[i] = pair{fused, plain}
	}
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		p := pairs[int(which)%len(pairs)]
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"t","arguments":` + args + `}}`)
		want := p.plain.Dispatch(context.Background(), msg, nil)
		if got := p.fused.Dispatch(context.Background(), msg, nil); string(got) != string(want) {
			t.Fatalf("arguments %s: one walk %s, two steps %s", args, got, want)
		}
	})
}
