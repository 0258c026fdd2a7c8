package fastmcp

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/jsonnum"
	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

// argPlan decodes the arguments of a typed tool whose input is a flat struct (string, bool,
// integer and float64 fields) straight from the decoded message, without sonic: a walk over
// the members that sets fields at offsets computed at registration.
//
// What it buys: a typed tools/call skips both the JSON-Schema validator's walk and sonic's
// decode. BenchmarkTypedArgs (argplan_bench_test.go) measures Dispatch of the same call with
// the plan (path=plan) and without it (path=general, argPlansOff) in one run.
//
// It is one-sided, like the schema fast path: it reports false for anything it is unsure of
// (an escaped key, null, a value of another JSON type, an integer out of range, a float that
// overflows), and the caller then decodes by the general path (sonic, see decodeInto) from
// scratch, which also words the error. So it changes the cost of a call, never its outcome;
// TestArgPlanAgreesWithSonic and FuzzArgPlan hold it to that. An integer field takes any
// integer-valued number exactly (1e2 is 100, -0.0 is 0), as the general path does.
type argPlan struct {
	fields []argField
	// Set by checking: the rules of the tool's flat input schema the walk enforces besides
	// the types. An unfit schema yields no checking plan.
	required uint64 // bits of the fields the schema requires
	closed   bool   // undeclared names are refused: left to the validator
}

type argField struct {
	name string
	off  uintptr
	kind reflect.Kind
	size uintptr // of an integer field, in bytes
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumber      = reflect.TypeFor[json.Number]() // a string that sonic fills from a number
)

// argPlansOff, set only by tests (BenchmarkTypedArgs), registers typed tools without plans,
// so the general path can be measured beside the plan's.
var argPlansOff bool

// newArgPlan returns the plan for struct type t, or nil when t is not a struct whose fields
// the plan handles exactly as sonic does.
func newArgPlan(t reflect.Type) *argPlan {
	if argPlansOff || t.Kind() != reflect.Struct || customDecoding(t) {
		return nil
	}
	p := &argPlan{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil // promoted fields follow rules of their own
		}
		if !sf.IsExported() {
			continue // sonic ignores them too
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		if !plainFieldName(name) || !plainTagOptions(opts) || customDecoding(sf.Type) {
			return nil
		}
		switch sf.Type.Kind() {
		case reflect.String, reflect.Bool, reflect.Float64,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return nil
		}
		for _, f := range p.fields {
			if strings.EqualFold(f.name, name) {
				return nil // conflicting names: leave the precedence rules to sonic
			}
		}
		p.fields = append(p.fields, argField{name: name, off: sf.Offset, kind: sf.Type.Kind(), size: sf.Type.Size()})
	}
	return p
}

func customDecoding(t reflect.Type) bool {
	if t == jsonNumber {
		return true
	}
	pt := reflect.PointerTo(t)
	return pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler)
}

// plainFieldName accepts the names that need no thought about which tags are valid: a
// letter, digit or '_', then letters, digits, '_', '-' and '.'.
func plainFieldName(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '_' && (i == 0 || c != '-' && c != '.') {
			return false
		}
	}
	return name != ""
}

func plainTagOptions(opts string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o != "" && o != "omitempty" && o != "omitzero" {
			return false // ",string" changes the decoding; others are left to sonic
		}
	}
	return true
}

// decode sets the fields of the struct at dst (zero on entry) from args, an object value of
// a message decode accepted. On false dst may be partly set and must be zeroed again.
// Strings share one buffer allocated per call, so handlers may keep them.
func (p *argPlan) decode(args []byte, dst unsafe.Pointer) bool {
	var buf []byte
	var seen uint64
	ok := true
	decode.Members(args, func(key, v []byte, t decode.Type) bool {
		i := p.field(key)
		if i < 0 {
			// Unknown: ignored, as sonic does, unless an escape could spell a known name.
			ok = !p.closed && bytes.IndexByte(key, '\\') < 0
			return ok
		}
		seen |= 1 << i // i >= 64 (a long plan, never a checking one) sets nothing
		f := &p.fields[i]
		at := unsafe.Add(dst, f.off)
		switch f.kind {
		case reflect.String:
			if ok = t == decode.TypeString; ok {
				*(*string)(at), buf = appendText(buf, args, v)
			}
		case reflect.Bool:
			if ok = t == decode.TypeBool; ok {
				*(*bool)(at) = v[0] == 't'
			}
		case reflect.Float64:
			if ok = t == decode.TypeInteger || t == decode.TypeNumber; ok {
				var x float64
				x, ok = parseFloat(v)
				*(*float64)(at) = x
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if ok = t == decode.TypeInteger || t == decode.TypeNumber; ok {
				ok = setInt(at, f.size, v, t)
			}
		default: // unsigned
			if ok = t == decode.TypeInteger || t == decode.TypeNumber; ok {
				ok = setUint(at, f.size, v, t)
			}
		}
		return ok
	})
	return ok && seen&p.required == p.required
}

// field returns the index of the field named by the raw key, -1 for none (a key with
// escapes never matches: the names are plain).
func (p *argPlan) field(key []byte) int {
	for i := range p.fields {
		if string(key) == p.fields[i].name {
			return i
		}
	}
	return -1
}

// checking returns a plan that also enforces the flat input schema fo, so that whatever it
// decodes the schema accepts, or nil when it cannot: every typed property must be a field
// whose accepted values the type covers, every required name a field, and in a closed
// schema every field declared.
func (p *argPlan) checking(fo jsonschema.FlatObject) *argPlan {
	if len(p.fields) > 64 {
		return nil
	}
	c := *p
	c.closed = fo.Closed
	for name, typ := range fo.Properties {
		i := p.field([]byte(name))
		if i < 0 && typ != "" || i >= 0 && !typeCovers(typ, p.fields[i].kind) {
			return nil
		}
	}
	for i, f := range p.fields {
		if _, declared := fo.Properties[f.name]; fo.Closed && !declared {
			return nil
		}
		if slices.Contains(fo.Required, f.name) {
			c.required |= 1 << i
		}
	}
	if bits.OnesCount64(c.required) != len(fo.Required) {
		return nil // a required name is no field
	}
	return &c
}

// typeCovers reports whether every value decode accepts for a field of kind k has JSON
// Schema type typ ("" for any).
func typeCovers(typ string, k reflect.Kind) bool {
	switch k {
	case reflect.String:
		return typ == "" || typ == "string"
	case reflect.Bool:
		return typ == "" || typ == "boolean"
	case reflect.Float64: // integer and number literals
		return typ == "" || typ == "number"
	}
	return typ == "" || typ == "integer" || typ == "number" // integer-valued numbers only
}

// appendText appends the unescaped content of the string literal lit (a value inside args)
// to buf and returns it as a string sharing buf. buf is allocated on the first string with
// room for every later one (their contents unescaped are no longer than the rest of args),
// and bytes once returned are never written again.
func appendText(buf, args, lit []byte) (string, []byte) {
	body := lit[1 : len(lit)-1]
	if len(body) == 0 {
		return "", buf
	}
	if buf == nil {
		rest := cap(args) - cap(lit) // lit's offset in args: both end where args' array ends
		buf = make([]byte, 0, len(args)-rest)
	}
	start := len(buf)
	if bytes.IndexByte(body, '\\') < 0 {
		buf = append(buf, body...)
	} else {
		buf = decode.Unquote(buf, lit)
	}
	return unsafe.String(&buf[start], len(buf)-start), buf
}

// parseInteger parses a JSON number literal (a validated one, of type t) that has an integer
// value as a sign and a magnitude; ok is false for a fraction or a magnitude beyond uint64.
func parseInteger(v []byte, t decode.Type) (neg bool, mag uint64, ok bool) {
	if t == decode.TypeNumber { // 1.0, 1e2, -0.0, 1e999999: read exactly, never materialised
		x, ok := jsonnum.Parse(v)
		if !ok {
			return false, 0, false
		}
		mag, ok = x.Uint64()
		return x.Neg, mag, ok
	}
	if v[0] == '-' {
		neg, v = true, v[1:]
	}
	if len(v) > 20 {
		return false, 0, false
	}
	for _, c := range v {
		d := uint64(c - '0')
		if mag > (math.MaxUint64-d)/10 {
			return false, 0, false
		}
		mag = mag*10 + d
	}
	return neg, mag, true
}

func setInt(at unsafe.Pointer, size uintptr, v []byte, t decode.Type) bool {
	neg, mag, ok := parseInteger(v, t)
	limit := uint64(1) << (size*8 - 1) // |min|; max is one less
	if !ok || mag > limit || !neg && mag == limit {
		return false
	}
	x := int64(mag)
	if neg {
		x = -x // -(1<<63) wraps to itself, which is right
	}
	switch size {
	case 1:
		*(*int8)(at) = int8(x)
	case 2:
		*(*int16)(at) = int16(x)
	case 4:
		*(*int32)(at) = int32(x)
	default:
		*(*int64)(at) = x
	}
	return true
}

func setUint(at unsafe.Pointer, size uintptr, v []byte, t decode.Type) bool {
	neg, mag, ok := parseInteger(v, t)
	if !ok || neg && mag != 0 || size < 8 && mag >= 1<<(size*8) { // -0 and -0.0 are 0
		return false
	}
	switch size {
	case 1:
		*(*uint8)(at) = uint8(mag)
	case 2:
		*(*uint16)(at) = uint16(mag)
	case 4:
		*(*uint32)(at) = uint32(mag)
	default:
		*(*uint64)(at) = mag
	}
	return true
}

// parseFloat parses a JSON number literal as the nearest float64; false when it overflows,
// and for a negative zero, which sonic reads as -0 or +0 depending on the literal's form.
func parseFloat(v []byte) (float64, bool) {
	x, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(v), len(v)), 64)
	return x, err == nil && (x != 0 || v[0] != '-')
}
