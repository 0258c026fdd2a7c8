package jsonschema

import (
	"encoding/json"
	"math/big"
	"net/netip"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type echoArgs struct {
	Text string `json:"text"`
}

type scalars struct {
	B   bool    `json:"b"`
	I   int     `json:"i"`
	I8  int8    `json:"i8"`
	I64 int64   `json:"i64"`
	U   uint    `json:"u"`
	U16 uint16  `json:"u16"`
	F32 float32 `json:"f32"`
	F64 float64 `json:"f64"`
	S   string  `json:"s"`
}

type Base struct {
	ID   string `json:"id"`
	Note string `json:"note,omitempty"`
}

type withEmbedded struct {
	Base
	Name string `json:"name"`
}

type withEmbeddedPtr struct {
	Name string `json:"name"`
	*Base
}

type inner struct {
	Region string `json:"region" mcpheader:"Region"`
	Limit  int    `json:"limit"`
}

type namedEmbed struct {
	Base `json:"base"`
}

type conflictA struct {
	X string `json:"x"`
}

type ConflictA struct {
	X string `json:"x"`
}

type ConflictB struct {
	X string `json:"x"`
}

type conflictC struct {
	X string
}

// conflictTagged embeds two structs that both provide a tagged "x" at the same depth, so both are
// dropped. It is built with reflect because go vet reports the repeated tag in a declaration.
var conflictTagged = reflect.StructOf([]reflect.StructField{
	{Name: "ConflictA", Type: reflect.TypeFor[ConflictA](), Anonymous: true},
	{Name: "ConflictB", Type: reflect.TypeFor[ConflictB](), Anonymous: true},
	{Name: "Y", Type: reflect.TypeFor[string](), Tag: `json:"y"`},
})

type conflictD struct {
	Y int `json:"X"`
}

// The tagged one wins over the untagged one at the same depth.
type conflictMixed struct {
	conflictC
	conflictD
}

// The shallower field wins.
type conflictDepth struct {
	conflictC
	X int
}

type hasUnexported struct {
	Public  string `json:"public"`
	private string //lint:ignore U1000 checked: an unexported field is not in the schema
	Skipped string `json:"-"`
	//lint:ignore SA5008 checked: "-," names a field "-", as encoding/json documents
	Dash string `json:"-,"`
}

type omits struct {
	A string  `json:"a,omitempty"`
	B string  `json:"b,omitzero"`
	C *string `json:"c"`
	D *string `json:"d,omitempty"`
	E string  `json:"e,omitempty" jsonschema:"required"`
	F string  `json:"f" jsonschema:"optional"`
	G string
}

type collections struct {
	Tags   []string          `json:"tags"`
	Matrix [][]int           `json:"matrix"`
	Fixed  [2]float64        `json:"fixed"`
	Blob   []byte            `json:"blob"`
	Labels map[string]string `json:"labels"`
	ByID   map[int]bool      `json:"by_id"`
	Any    []any             `json:"any"`
	Inners []inner2          `json:"inners"`
}

type inner2 struct {
	A string `json:"a"`
}

type specials struct {
	When   time.Time       `json:"when"`
	WhenP  *time.Time      `json:"when_p"`
	Raw    json.RawMessage `json:"raw"`
	Num    json.Number     `json:"num"`
	Any    any             `json:"any"`
	Addr   netip.Addr      `json:"addr"`
	Big    *big.Int        `json:"big"`
	Dur    time.Duration   `json:"dur"`
	Quoted int             `json:"quoted,string"`
}

type described struct {
	City  string   `json:"city" description:"City name, e.g. \"Paris\"\n"`
	Unit  string   `json:"unit,omitempty" jsonschema:"enum=c|f" description:"Unit"`
	Level int      `json:"level" jsonschema:"enum=1|2|3,minimum=1,maximum=3"`
	Ratio float64  `json:"ratio" jsonschema:"minimum=0.5,maximum=1e3"`
	Email string   `json:"email" jsonschema:"format=email,minLength=3,maxLength=254"`
	Flags []string `json:"flags" jsonschema:"minItems=1,maxItems=4"`
	On    bool     `json:"on" jsonschema:"enum=true"`
	Inner inner2   `json:"inner" description:"nested"`
}

type nested struct {
	Opts  inner  `json:"opts"`
	OptsP *inner `json:"opts_p,omitempty"`
}

type nestedOK struct {
	Opts *inner `json:"opts,omitempty"`
	Q    string `json:"q"`
}

type multiHeader struct {
	Region string `json:"region" mcpheader:"Region"`
	Debug  bool   `json:"debug,omitempty" mcpheader:"X-Debug_1.v2~"`
	Count  *int64 `json:"count,omitempty" mcpheader:"Count"`
}

func TestDerive(t *testing.T) {
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"echo", reflect.TypeFor[echoArgs](), `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`},
		{"pointer root", reflect.TypeFor[*echoArgs](), `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`},
		{"empty struct", reflect.TypeFor[struct{}](), `{"type":"object","properties":{}}`},
		{"scalars", reflect.TypeFor[scalars](),
			`{"type":"object","properties":{"b":{"type":"boolean"},"i":{"type":"integer"},"i8":{"type":"integer"},"i64":{"type":"integer"},` +
				`"u":{"type":"integer","minimum":0},"u16":{"type":"integer","minimum":0},"f32":{"type":"number"},"f64":{"type":"number"},"s":{"type":"string"}},` +
				`"required":["b","i","i8","i64","u","u16","f32","f64","s"]}`},
		{"embedded", reflect.TypeFor[withEmbedded](),
			`{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"},"name":{"type":"string"}},"required":["id","name"]}`},
		{"embedded pointer", reflect.TypeFor[withEmbeddedPtr](),
			`{"type":"object","properties":{"name":{"type":"string"},"id":{"type":"string"},"note":{"type":"string"}},"required":["name","id"]}`},
		{"named embedded", reflect.TypeFor[namedEmbed](),
			`{"type":"object","properties":{"base":{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"}},"required":["id"]}},"required":["base"]}`},
		{"conflict tagged dropped", conflictTagged, `{"type":"object","properties":{"y":{"type":"string"}},"required":["y"]}`},
		{"conflict tagged wins", reflect.TypeFor[conflictMixed](), `{"type":"object","properties":{"X":{"type":"integer"}},"required":["X"]}`},
		{"conflict shallow wins", reflect.TypeFor[conflictDepth](), `{"type":"object","properties":{"X":{"type":"integer"}},"required":["X"]}`},
		{"unexported and skipped", reflect.TypeFor[hasUnexported](),
			`{"type":"object","properties":{"public":{"type":"string"},"-":{"type":"string"}},"required":["public","-"]}`},
		{"omit and required options", reflect.TypeFor[omits](),
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},` +
				`"e":{"type":"string"},"f":{"type":"string"},"G":{"type":"string"}},"required":["c","e","G"]}`},
		{"collections", reflect.TypeFor[collections](),
			`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"matrix":{"type":"array","items":{"type":"array","items":{"type":"integer"}}},` +
				`"fixed":{"type":"array","items":{"type":"number"}},"blob":{"type":"string","contentEncoding":"base64"},` +
				`"labels":{"type":"object","additionalProperties":{"type":"string"}},"by_id":{"type":"object","additionalProperties":{"type":"boolean"}},` +
				`"any":{"type":"array"},"inners":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}}},` +
				`"required":["tags","matrix","fixed","blob","labels","by_id","any","inners"]}`},
		{"specials", reflect.TypeFor[specials](),
			`{"type":"object","properties":{"when":{"type":"string","format":"date-time"},"when_p":{"type":"string","format":"date-time"},` +
				`"raw":{},"num":{"type":"number"},"any":{},"addr":{"type":"string"},"big":{},"dur":{"type":"integer"},"quoted":{"type":"string"}},` +
				`"required":["when","when_p","raw","num","any","addr","big","dur","quoted"]}`},
		{"descriptions and options", reflect.TypeFor[described](),
			`{"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. \"Paris\"\n"},` +
				`"unit":{"type":"string","description":"Unit","enum":["c","f"]},` +
				`"level":{"type":"integer","enum":[1,2,3],"minimum":1,"maximum":3},` +
				`"ratio":{"type":"number","minimum":0.5,"maximum":1000},` +
				`"email":{"type":"string","format":"email","minLength":3,"maxLength":254},` +
				`"flags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":4},` +
				`"on":{"type":"boolean","enum":[true]},` +
				`"inner":{"type":"object","description":"nested","properties":{"a":{"type":"string"}},"required":["a"]}},` +
				`"required":["city","level","ratio","email","flags","on","inner"]}`},
		{"nested header", reflect.TypeFor[nestedOK](),
			`{"type":"object","properties":{"opts":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"limit":{"type":"integer"}},"required":["region","limit"]},` +
				`"q":{"type":"string"}},"required":["q"]}`},
		{"map root", reflect.TypeFor[map[string]int](), `{"type":"object","additionalProperties":{"type":"integer"}}`},
		{"map any root", reflect.TypeFor[map[string]any](), `{"type":"object"}`},
		{"headers", reflect.TypeFor[multiHeader](),
			`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"debug":{"type":"boolean","x-mcp-header":"X-Debug_1.v2~"},` +
				`"count":{"type":"integer","x-mcp-header":"Count"}},"required":["region"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DeriveType(tc.typ)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
			assert.True(t, json.Valid(got))
			// Deterministic.
			again, err := DeriveType(tc.typ)
			require.NoError(t, err)
			assert.Equal(t, got, again)
			// Every derived schema compiles.
			_, err = Compile(got)
			require.NoError(t, err)
		})
	}
}

func TestDeriveGeneric(t *testing.T) {
	got, err := Derive[echoArgs]()
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, string(got))
}

type recursive struct {
	Name     string       `json:"name"`
	Children []*recursive `json:"children"`
}

type mutualA struct {
	B *mutualB `json:"b"`
}

type mutualB struct {
	A map[string]mutualA `json:"a"`
}

// Embedding cycles are cut like encoding/json does, not an error.
type embedCycleA struct {
	*embedCycleB
	A string `json:"a"`
}

type embedCycleB struct {
	*embedCycleA
	B string `json:"b"`
}

func TestDeriveEmbedCycle(t *testing.T) {
	got, err := Derive[embedCycleA]()
	require.NoError(t, err)
	assert.Equal(t, `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}},"required":["b","a"]}`, string(got))
}

func TestDeriveErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		want error
	}{
		{"nil", nil, ErrNotObject},
		{"string root", reflect.TypeFor[string](), ErrNotObject},
		{"slice root", reflect.TypeFor[[]echoArgs](), ErrNotObject},
		{"any root", reflect.TypeFor[any](), ErrNotObject},
		{"time root", reflect.TypeFor[time.Time](), ErrNotObject},
		{"raw root", reflect.TypeFor[json.RawMessage](), ErrNotObject},
		{"recursive", reflect.TypeFor[recursive](), ErrRecursiveType},
		{"mutual recursion", reflect.TypeFor[mutualA](), ErrRecursiveType},
		{"chan field", reflect.TypeFor[struct {
			C chan int `json:"c"`
		}](), ErrUnsupportedType},
		{"func field", reflect.TypeFor[struct{ F func() }](), ErrUnsupportedType},
		{"complex field", reflect.TypeFor[struct{ C complex128 }](), ErrUnsupportedType},
		{"unsafe pointer", reflect.TypeFor[struct{ P unsafe.Pointer }](), ErrUnsupportedType},
		{"struct map key", reflect.TypeFor[map[echoArgs]int](), ErrUnsupportedType},
		{"unknown option", reflect.TypeFor[struct {
			S string `jsonschema:"pattern=^a$"`
		}](), ErrInvalidTag},
		{"minimum on string", reflect.TypeFor[struct {
			S string `jsonschema:"minimum=1"`
		}](), ErrInvalidTag},
		{"minLength on int", reflect.TypeFor[struct {
			N int `jsonschema:"minLength=1"`
		}](), ErrInvalidTag},
		{"minItems on string", reflect.TypeFor[struct {
			S string `jsonschema:"minItems=1"`
		}](), ErrInvalidTag},
		{"enum on slice", reflect.TypeFor[struct {
			S []string `jsonschema:"enum=a"`
		}](), ErrInvalidTag},
		{"enum on any", reflect.TypeFor[struct {
			S any `jsonschema:"enum=a"`
		}](), ErrInvalidTag},
		{"bad enum int", reflect.TypeFor[struct {
			N int `jsonschema:"enum=1|x"`
		}](), ErrInvalidTag},
		{"bad enum bool", reflect.TypeFor[struct {
			B bool `jsonschema:"enum=yes"`
		}](), ErrInvalidTag},
		{"empty enum", reflect.TypeFor[struct {
			S string `jsonschema:"enum="`
		}](), ErrInvalidTag},
		{"bad minimum", reflect.TypeFor[struct {
			N int `jsonschema:"minimum=one"`
		}](), ErrInvalidTag},
		{"infinite maximum", reflect.TypeFor[struct {
			N float64 `jsonschema:"maximum=Inf"`
		}](), ErrInvalidTag},
		{"negative minLength", reflect.TypeFor[struct {
			S string `jsonschema:"minLength=-1"`
		}](), ErrInvalidTag},
		{"repeated option", reflect.TypeFor[struct {
			S string `jsonschema:"minLength=1,minLength=2"`
		}](), ErrInvalidTag},
		{"required and optional", reflect.TypeFor[struct {
			S string `jsonschema:"required,optional"`
		}](), ErrInvalidTag},
		{"flag with value", reflect.TypeFor[struct {
			S string `jsonschema:"required=true"`
		}](), ErrInvalidTag},
		{"empty format", reflect.TypeFor[struct {
			S string `jsonschema:"format="`
		}](), ErrInvalidTag},
		{"minimum on quoted int", reflect.TypeFor[struct {
			N int `json:"n,string" jsonschema:"minimum=1"`
		}](), ErrInvalidTag},
		{"header on number", reflect.TypeFor[struct {
			F float64 `json:"f" mcpheader:"F"`
		}](), ErrInvalidHeader},
		{"header on object", reflect.TypeFor[struct {
			O inner2 `json:"o" mcpheader:"O"`
		}](), ErrInvalidHeader},
		{"header on array", reflect.TypeFor[struct {
			A []string `json:"a" mcpheader:"A"`
		}](), ErrInvalidHeader},
		{"header on any", reflect.TypeFor[struct {
			A any `json:"a" mcpheader:"A"`
		}](), ErrInvalidHeader},
		{"header empty", reflect.TypeFor[struct {
			S string `json:"s" mcpheader:""`
		}](), ErrInvalidHeader},
		{"header space", reflect.TypeFor[struct {
			S string `json:"s" mcpheader:"My Region"`
		}](), ErrInvalidHeader},
		{"header colon", reflect.TypeFor[struct {
			S string `json:"s" mcpheader:"Region:"`
		}](), ErrInvalidHeader},
		{"header non-ascii", reflect.TypeFor[struct {
			S string `json:"s" mcpheader:"Régión"`
		}](), ErrInvalidHeader},
		{"header duplicate ignoring case", reflect.TypeFor[struct {
			A string `json:"a" mcpheader:"Region"`
			B string `json:"b" mcpheader:"REGION"`
		}](), ErrInvalidHeader},
		{"header in slice items", reflect.TypeFor[struct {
			Items []inner `json:"items"`
		}](), ErrInvalidHeader},
		{"header in map values", reflect.TypeFor[struct {
			Items map[string]inner `json:"items"`
		}](), ErrInvalidHeader},
		{"header repeated through struct reuse", reflect.TypeFor[nested](), ErrInvalidHeader},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DeriveType(tc.typ)
			require.ErrorIs(t, err, tc.want)
			t.Log(err)
		})
	}
}

// TestDeriveHeaderParamsAgree checks that HeaderParams reads back what Derive wrote.
func TestDeriveHeaderParamsAgree(t *testing.T) {
	type opts struct {
		Zone string `json:"zone" mcpheader:"Zone"`
	}
	type args struct {
		Base
		Region string `json:"region" mcpheader:"Region"`
		Dry    bool   `json:"dry,omitempty" mcpheader:"Dry-Run"`
		Opts   opts   `json:"opts"`
		Count  uint8  `json:"count" mcpheader:"Count"`
	}
	raw, err := Derive[args]()
	require.NoError(t, err)
	params, err := HeaderParams(raw)
	require.NoError(t, err)
	assert.Equal(t, []HeaderParam{
		{Name: "Count", Path: []string{"count"}, Type: "integer"},
		{Name: "Dry-Run", Path: []string{"dry"}, Type: "boolean"},
		{Name: "Zone", Path: []string{"opts", "zone"}, Type: "string"},
		{Name: "Region", Path: []string{"region"}, Type: "string"},
	}, params)
}

func TestJSONFieldsMatchEncodingJSON(t *testing.T) {
	// The property names Derive uses are the keys encoding/json writes for a zero value (all
	// fields non-pointer here, so nothing is omitted except by omitempty/omitzero).
	type deep struct {
		conflictA
		conflictDepth
		withEmbedded
		Extra string `json:"extra"`
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[withEmbedded](), conflictTagged, reflect.TypeFor[conflictMixed](),
		reflect.TypeFor[conflictDepth](), reflect.TypeFor[hasUnexported](), reflect.TypeFor[deep](),
	} {
		b, err := json.Marshal(reflect.New(typ).Elem().Interface())
		require.NoError(t, err)
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &m))
		var want []string
		for k := range m {
			want = append(want, k)
		}
		var got []string
		for _, f := range jsonFields(typ) {
			if !f.omit {
				got = append(got, f.name)
			}
		}
		assert.ElementsMatch(t, want, got, typ.String())
	}
}

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":          `"plain"`,
		"q\"b\\":         `"q\"b\\"`,
		"\n\r\t\x01\x1f": `"\n\r\t\u0001\u001f"`,
		"<&>":            `"<&>"`,
		"é\u2028\u2029":  `"é\u2028\u2029"`,
		"bad\xffutf8":    `"bad\ufffdutf8"`,
	} {
		got := appendString(nil, in)
		assert.Equal(t, want, string(got), "%q", in)
		var back string
		require.NoError(t, json.Unmarshal(got, &back))
	}
}
