package decode

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzLookup checks Lookup, and ValueOf on the elements of an array, against encoding/json
// decoding the same bytes in full: for any params object Decode accepts and any key, the
// member is present exactly when encoding/json has it, with the same raw bytes and type, and
// a string's text is what encoding/json unescapes (never nil; nil for any other type). The
// walk follows key down through nested objects, as callers look up paths, and where the
// decoder captures the member itself (name, uri, cursor, requestState) Lookup agrees with it.
func FuzzLookup(f *testing.F) {
	for _, s := range []struct{ obj, key string }{
		{`{"taskId":"\u0041bc"}`, "taskId"},
		{`{"taskId":"Abc"}`, "taskId"},
		{`{"t\u0061skId":"\u0041bc"}`, "taskId"},
		{`{"k":"\ud83d\ude00"}`, "k"},
		{`{"k":"\uD83D\uDE00 \u00e9"}`, "k"},
		{`{"k":"a\"b\\c\/d"}`, "k"},
		{`{"k":"\b\f\n\r\t\u0000"}`, "k"},
		{`{"k":"\x"}`, "k"},
		{`{"k":"\ud800"}`, "k"},
		{`{"k":"\udc00\ud800"}`, "k"},
		{`{"k":"\u00"}`, "k"},
		{`{"k":""}`, "k"},
		{`{ "k" : [ "\u0041", 1, -2.5e3, {"k":"\\"}, null, true ] }`, "k"},
		{`{"k":{"k":{"k":"\u0041"}}}`, "k"},
		{`{"name":"e\u0063ho","uri":"a\/b","cursor":"\"c\"","requestState":"\u2028"}`, "name"},
		{`{"name":"e\u0063ho","uri":"a\/b","cursor":"\"c\"","requestState":"\u2028"}`, "uri"},
		{`{"name":"e\u0063ho","uri":"a\/b","cursor":"\"c\"","requestState":"\u2028"}`, "cursor"},
		{`{"name":"e\u0063ho","uri":"a\/b","cursor":"\"c\"","requestState":"\u2028"}`, "requestState"},
		{`{"k":1,"k":2}`, "k"},
		{`{"\u006b":1}`, "k"},
		{`{"é":"\u00e9"}`, "é"},
	} {
		f.Add([]byte(s.obj), s.key)
	}
	f.Fuzz(func(t *testing.T, obj []byte, key string) {
		var m Message
		in := append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":`), obj...), '}')
		if Decode(&m, in) != nil || m.Params().Type() != TypeObject {
			return // Lookup is for what Decode accepts
		}
		params := m.Params().Raw()
		captured := map[string]Value{"name": m.Name(), "uri": m.URI(), "cursor": m.Cursor(), "requestState": m.RequestState()}
		if want, ok := captured[key]; ok {
			got := Lookup(params, key)
			if got.Type() != want.Type() || !bytes.Equal(got.Raw(), want.Raw()) || !bytes.Equal(got.Text(), want.Text()) || (got.Text() == nil) != (want.Text() == nil) {
				t.Fatalf("Lookup(%q) = %s %q text %q, the decoder %s %q text %q", key, got.Type(), got.Raw(), got.Text(), want.Type(), want.Raw(), want.Text())
			}
		}
		for o := params; ; {
			var members map[string]json.RawMessage
			if err := json.Unmarshal(o, &members); err != nil {
				t.Fatalf("encoding/json refused an object Decode accepted: %q: %v", o, err)
			}
			want, ok := members[key]
			got := Lookup(o, key)
			checkValue(t, "Lookup("+key+")", got, want, ok)
			if got.Type() == TypeArray {
				var elems []json.RawMessage
				if err := json.Unmarshal(got.Raw(), &elems); err != nil {
					t.Fatalf("encoding/json refused an array Decode accepted: %q: %v", got.Raw(), err)
				}
				i := 0
				Elements(got.Raw(), func(raw []byte, typ Type) bool {
					if i >= len(elems) {
						t.Fatalf("Elements gave more than %d elements of %q", len(elems), got.Raw())
					}
					checkValue(t, "ValueOf", ValueOf(raw, typ), elems[i], true)
					i++
					return true
				})
				if i != len(elems) {
					t.Fatalf("Elements gave %d elements of %q, encoding/json %d", i, got.Raw(), len(elems))
				}
			}
			if got.Type() != TypeObject {
				break
			}
			o = got.Raw()
		}
	})
}

// checkValue checks v against what encoding/json decoded for the same member: want (raw
// bytes), present when ok.
func checkValue(t *testing.T, what string, v Value, want json.RawMessage, ok bool) {
	t.Helper()
	if v.Present() != ok {
		t.Fatalf("%s: present %v, encoding/json %v", what, v.Present(), ok)
	}
	if !ok {
		return
	}
	if !bytes.Equal(v.Raw(), want) {
		t.Fatalf("%s: raw %q, encoding/json %q", what, v.Raw(), want)
	}
	if typ := jsonType(want); v.Type() != typ {
		t.Fatalf("%s: type %s, encoding/json %s (%q)", what, v.Type(), typ, want)
	}
	if v.Type() != TypeString {
		if v.Text() != nil {
			t.Fatalf("%s: a %s with text %q", what, v.Type(), v.Text())
		}
		return
	}
	var s string
	if err := json.Unmarshal(want, &s); err != nil {
		t.Fatalf("%s: encoding/json refused %q: %v", what, want, err)
	}
	if v.Text() == nil || string(v.Text()) != s || v.String() != s {
		t.Fatalf("%s: text %q (nil %v), encoding/json %q", what, v.Text(), v.Text() == nil, s)
	}
}

// jsonType is the Type of a raw JSON value, by its first byte (and, for a number, whether it
// has a fraction or an exponent).
func jsonType(raw []byte) Type {
	switch raw[0] {
	case '"':
		return TypeString
	case '{':
		return TypeObject
	case '[':
		return TypeArray
	case 't', 'f':
		return TypeBool
	case 'n':
		return TypeNull
	}
	if bytes.ContainsAny(raw, ".eE") {
		return TypeNumber
	}
	return TypeInteger
}
