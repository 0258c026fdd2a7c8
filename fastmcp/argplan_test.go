package fastmcp

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

type planMode string

type planArgs struct {
	Text   string    `json:"text"`
	Opt    string    `json:"opt,omitempty"`
	Flag   bool      `json:"flag"`
	N      int       `json:"n"`
	I8     int8      `json:"i8"`
	I16    int16     `json:"i16"`
	I32    int32     `json:"i32"`
	I64    int64     `json:"i64"`
	U      uint      `json:"u"`
	U8     uint8     `json:"u8"`
	U16    uint16    `json:"u16"`
	U32    uint32    `json:"u32"`
	U64    uint64    `json:"u64"`
	F      float64   `json:"f"`
	Mode   planMode  `json:"mode"`
	Plain  string    // no tag: the Go name, matched case-sensitively
	Dotted string    `json:"a.b-c_d"`
	Skip   string    `json:"-"`
	hidden string    //nolint:unused // unexported: never set
	_      [0]func() // not comparable with ==, like many real inputs are not
}

// decodedArgs returns the arguments object of a message built around args, as Handle gets it.
func decodedArgs(t testing.TB, args string) ([]byte, bool) {
	var m decode.Message
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":` + args + `}}`
	if decode.Decode(&m, []byte(msg)) != nil || m.Arguments().Type() != decode.TypeObject {
		return nil, false
	}
	return m.Arguments().Raw(), true
}

// planAgrees decodes raw with the plan and by the general path (sonic, see decodeInto): when
// the plan accepts, the general path must accept too and produce the same value. It reports
// whether the plan accepted.
func planAgrees[T any](t testing.TB, raw []byte) bool {
	t.Helper()
	plan := newArgPlan(reflect.TypeFor[T]())
	require.NotNil(t, plan)
	var fast, slow T
	ok := plan.decode(raw, unsafe.Pointer(&fast))
	err := decodeInto(raw, &slow)
	if ok {
		if err != nil {
			t.Fatalf("plan accepted %s, the general path: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, slow) || !sameFloats(fast, slow) {
			t.Fatalf("plan decoded %s as %+v, the general path as %+v", raw, fast, slow)
		}
	}
	return ok
}

// sameFloats compares float64 fields bit for bit (DeepEqual takes -0 for 0).
func sameFloats[T any](a, b T) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		if va.Field(i).Kind() == reflect.Float64 && math.Float64bits(va.Field(i).Float()) != math.Float64bits(vb.Field(i).Float()) {
			return false
		}
	}
	return true
}

func TestArgPlanAgreesWithSonic(t *testing.T) {
	for _, tc := range []struct {
		args string
		fast bool // the plan decodes it itself
	}{
		{`{}`, true},
		{`{"text":"hello, world"}`, true},
		{` { "text" : "hi" , "flag" : true } `, true},
		{`{"text":""}`, true},
		{`{"text":"a\"b\\c\/d\b\f\n\r\t"}`, true},
		{`{"text":"\u00e9\u4e16\ud83d\ude00 \u0000 \u001f"}`, true},
		{`{"text":"é世😀"}`, true},
		{`{"text":"x","opt":"y\n","mode":"fast","Plain":"p","a.b-c_d":"q"}`, true},
		{`{"flag":false}`, true},
		{`{"n":0,"i8":-128,"i16":32767,"i32":-2147483648,"i64":-9223372036854775808}`, true},
		{`{"n":9223372036854775807,"i64":9223372036854775807}`, true},
		{`{"u":18446744073709551615,"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615}`, true},
		{`{"n":-0}`, true},
		{`{"f":0}`, true},
		{`{"f":1.5}`, true},
		{`{"f":-2.5e-3}`, true},
		{`{"f":1E+2}`, true},
		{`{"f":0.1}`, true},
		{`{"f":9007199254740993}`, true},
		{`{"f":123456789012345678901234567890}`, true},
		{`{"f":2.2250738585072011e-308}`, true},
		{`{"f":4.9e-324}`, true},
		{`{"f":1e-400}`, true},
		{`{"f":1.7976931348623157e308}`, true},
		{`{"f":0.30000000000000004441}`, true},
		{`{"unknown":1,"other":{"text":1},"list":[1,"}"],"text":"t"}`, true},
		{`{"TEXT":1,"Text":2,"plain":3,"hidden":4,"Skip":5,"-":6}`, true},
		// Integer-valued numbers in any form (issue 10, defect 13).
		{`{"n":1.0}`, true},
		{`{"n":1e2}`, true},
		{`{"n":5e0,"i8":1.27e2,"i16":-3.2768e4,"u8":25.5e1}`, true},
		{`{"n":-0.0,"u":-0,"u8":-0,"u64":-0.0e7}`, true},
		{`{"i64":-9.223372036854775808e18,"u64":1.8446744073709551615e19}`, true},
		{`{"n":100e-2}`, true},

		// Left to sonic: wrong types, null, escaped keys, out-of-range numbers.
		{`{"text":1}`, false},
		{`{"text":null}`, false},
		{`{"text":true}`, false},
		{`{"text":{}}`, false},
		{`{"text":[]}`, false},
		{`{"flag":"true"}`, false},
		{`{"flag":1}`, false},
		{`{"flag":null}`, false},
		{`{"n":"1"}`, false},
		{`{"n":1.5}`, false},
		{`{"n":1e-1}`, false},
		{`{"n":1e999999}`, false},
		{`{"n":-1e3999999}`, false},
		{`{"i8":1.28e2}`, false},
		{`{"u8":-1e0}`, false},
		{`{"i64":9.223372036854775808e18}`, false},
		{`{"n":null}`, false},
		{`{"n":9223372036854775808}`, false},
		{`{"i64":-9223372036854775809}`, false},
		{`{"i8":128}`, false},
		{`{"i8":-129}`, false},
		{`{"i16":32768}`, false},
		{`{"i32":2147483648}`, false},
		{`{"u":-1}`, false},
		{`{"u8":256}`, false},
		{`{"u16":65536}`, false},
		{`{"u32":4294967296}`, false},
		{`{"u64":18446744073709551616}`, false},
		{`{"u64":99999999999999999999}`, false},
		{`{"u64":1000000000000000000000000}`, false},
		{`{"f":"1"}`, false},
		{`{"f":1e400}`, false},
		{`{"f":-1e309}`, false},
		{`{"f":null}`, false},
		{`{"f":-0}`, false},
		{`{"f":-0.0}`, false},
		{`{"f":-1e-400}`, false},
		{`{"te\u0078t":"hi"}`, false},
		{`{"\u0074ext":1}`, false},
		{`{"unknown\n":1}`, false},
		{`{"mode":1}`, false},
	} {
		raw, ok := decodedArgs(t, tc.args)
		require.True(t, ok, tc.args)
		assert.Equal(t, tc.fast, planAgrees[planArgs](t, raw), tc.args)
	}
}

// TestArgPlanStringsAreOwned: decoded strings do not alias the message, so a handler may keep
// them after the input buffer is reused.
func TestArgPlanStringsAreOwned(t *testing.T) {
	raw, _ := decodedArgs(t, `{"text":"hello","mode":"a\nb","opt":"x"}`)
	var in planArgs
	require.True(t, newArgPlan(reflect.TypeFor[planArgs]()).decode(raw, unsafe.Pointer(&in)))
	for i := range raw {
		raw[i] = 'X'
	}
	assert.Equal(t, "hello", in.Text)
	assert.Equal(t, planMode("a\nb"), in.Mode)
	assert.Equal(t, "x", in.Opt)
}

type (
	textMode   string
	jsonMode   string
	embedded   struct{ Text string }
	withEmbed  struct{ embedded }
	withCustom struct {
		M textMode `json:"m"`
	}
	withJSON struct {
		M jsonMode `json:"m"`
	}
	selfDecoding struct{ Text string }
)

func (m *textMode) UnmarshalText(b []byte) error   { *m = textMode("t:" + string(b)); return nil }
func (m *jsonMode) UnmarshalJSON(b []byte) error   { *m = jsonMode("j:" + string(b)); return nil }
func (s *selfDecoding) UnmarshalJSON([]byte) error { s.Text = "custom"; return nil }

func TestArgPlanEligibility(t *testing.T) {
	for typ, ok := range map[reflect.Type]bool{
		reflect.TypeFor[planArgs]():                       true,
		reflect.TypeFor[benchEchoArgs]():                  true,
		reflect.TypeFor[struct{}]():                       true,
		reflect.TypeFor[struct{ A, B string }]():          true,
		reflect.TypeFor[struct{ A []string }]():           false,
		reflect.TypeFor[struct{ A *string }]():            false,
		reflect.TypeFor[struct{ A any }]():                false,
		reflect.TypeFor[struct{ A float32 }]():            false,
		reflect.TypeFor[struct{ A uintptr }]():            false,
		reflect.TypeFor[struct{ A struct{ B string } }](): false,
		reflect.TypeFor[struct{ A map[string]string }]():  false,
		reflect.TypeFor[struct{ A json.Number }]():        false,
		reflect.TypeFor[struct{ A json.RawMessage }]():    false,
		reflect.TypeFor[withEmbed]():                      false,
		reflect.TypeFor[withCustom]():                     false,
		reflect.TypeFor[withJSON]():                       false,
		reflect.TypeFor[selfDecoding]():                   false,
		reflect.TypeFor[map[string]string]():              false,
		reflect.TypeFor[string]():                         false,
		reflect.TypeFor[*benchEchoArgs]():                 false,
		reflect.TypeFor[struct {
			A int `json:"a,string"`
		}](): false,
		reflect.TypeFor[struct {
			A int `json:"a,inline"`
		}](): false,
		reflect.TypeFor[struct {
			A int `json:"a b"`
		}](): false,
		reflect.TypeFor[struct {
			//lint:ignore SA5008 checked: "-," names a field "-", as encoding/json documents
			A int `json:"-,"`
		}](): false,
		reflect.TypeFor[struct {
			A int `json:".a"`
		}](): false,
		reflect.TypeFor[struct {
			A int `json:"_a-1.b"`
		}](): true,
		reflect.TypeFor[struct {
			A int `json:"x"`
			B int `json:"X"`
		}](): false,
		reflect.TypeFor[struct {
			A int `json:"a,omitempty,omitzero"`
		}](): true,
	} {
		assert.Equal(t, ok, newArgPlan(typ) != nil, typ.String())
	}
}

// TestArgPlanThroughAddTool: the typed wrapper answers alike on both paths, including the
// errors only sonic words.
func TestArgPlanThroughAddTool(t *testing.T) {
	s := newTestServer(t, nil)
	AddTool(s, Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, _ *Request, in planArgs) (ToolResult, error) {
		b, err := json.Marshal(struct {
			planArgs
			Skip string
		}{in, in.Skip})
		return ToolResult{Text: string(b)}, err
	})
	call := func(args string) string {
		return dispatch(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"echo","arguments":`+args+`}}`)
	}
	result := func(text string) string {
		return `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":` + text + `}],` + serverInfoMeta + `}}`
	}
	zero := `{\"text\":\"\",\"flag\":false,\"n\":0,\"i8\":0,\"i16\":0,\"i32\":0,\"i64\":0,\"u\":0,\"u8\":0,\"u16\":0,\"u32\":0,\"u64\":0,\"f\":0,\"mode\":\"\",\"Plain\":\"\",\"a.b-c_d\":\"\",\"Skip\":\"\"}`
	assert.Equal(t, result(`"`+zero+`"`), call(`{"Skip":"no","hidden":"no"}`))
	assert.Equal(t, result(`"`+zero+`"`), call(`{"text":null}`))
	assert.Contains(t, call(`{"text":"a\u00e9\n","n":-3,"f":0.5}`), `{\"text\":\"aé\\n\",\"flag\":false,\"n\":-3,`)
	assert.Contains(t, call(`{"text":"\u00e9","n":1.5}`), `"text":"Invalid arguments: `)
	assert.Contains(t, call(`{"i8":300}`), `"text":"Invalid arguments: `)
	assert.Contains(t, call(`{"t\u0065xt":"esc"}`), `{\"text\":\"esc\",`)
}

// FuzzArgPlan: whatever arguments decode accepts, the plan agrees with the general path or
// steps aside.
func FuzzArgPlan(f *testing.F) {
	for _, s := range []string{`{}`, `{"text":"a\u00e9\n"}`, `{"n":-1,"u8":255,"f":1e-3,"flag":true}`, `{"x":[1,{"y":2}],"i64":-9223372036854775808}`, `{"f":1.7976931348623159e308}`, `{"f":0.1e1}`, `{"f":-1.0e-5}`, `{"f":2.4703282292062328e-324}`, `{"n":1e2,"u8":2.55e2,"i8":-1.28e2}`, `{"u":-0.0,"n":1e999999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		if raw, ok := decodedArgs(t, args); ok {
			planAgrees[planArgs](t, raw)
		}
	})
}

// TestArgPlanFloatsAgree: strconv and sonic round every kind of literal alike (shortest forms,
// long mantissas, halfway cases, subnormals, huge exponents).
func TestArgPlanFloatsAgree(t *testing.T) {
	type floatArgs struct {
		F float64 `json:"f"`
	}
	rng := rand.New(rand.NewPCG(1, 2))
	lits := []string{"0.1", "1e23", "8.41e21", "5e-324", "2.2250738585072014e-308", "9007199254740993.0000000001"}
	for range 20000 {
		x := math.Float64frombits(rng.Uint64())
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		lits = append(lits,
			strconv.FormatFloat(x, 'g', -1, 64),
			strconv.FormatFloat(x, 'e', rng.IntN(25), 64),
			strconv.FormatFloat(math.Abs(x)/1e300, 'f', rng.IntN(30), 64),
			strconv.FormatUint(rng.Uint64(), 10)+strconv.FormatUint(rng.Uint64(), 10)+"e-"+strconv.Itoa(rng.IntN(400)))
	}
	fast := 0
	for _, lit := range lits {
		raw, ok := decodedArgs(t, `{"f":`+lit+`}`)
		require.True(t, ok, lit)
		if planAgrees[floatArgs](t, raw) {
			fast++
		}
	}
	assert.Greater(t, fast, len(lits)*9/10)
}
