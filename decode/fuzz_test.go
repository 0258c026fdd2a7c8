package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// stricter lists the parse errors that encoding/json does not raise: the decoder's own rules.
var stricter = map[string]bool{
	msgDigits: true, msgDepth: true, msgUTF8: true, msgSurrogate: true,
}

// FuzzDecode checks the decoder against encoding/json: it never panics; whatever it accepts
// as JSON, encoding/json accepts; it refuses as JSON only what encoding/json refuses or what
// one of its stricter rules names; and the id, method and params views equal what
// encoding/json decodes.
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.json")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		withID("1"), withID(`"x"`), withID("1.5"), withID(digits(65)), withToken(`"t"`),
		req(`{"name":"a","name":"b"}`), req(`{"name":"\ud800"}`), `[1]`, `{}`, ``, `"\u2028"`,
		`{"jsonrpc":"2.0","method":"m","params":{"_meta":{"progressToken":{}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var m Message
		err := Decode(&m, in)
		var de *Error
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("error of type %T: %v", err, err)
		}
		valid := json.Valid(in)
		parseErr := de != nil && de.Code == CodeParseError
		if !parseErr && !valid {
			t.Fatalf("accepted JSON that encoding/json refuses: %q (err %v)", in, err)
		}
		if parseErr && valid && !stricter[de.Message] {
			t.Fatalf("refused JSON that encoding/json accepts, without a stricter rule: %q: %v", in, err)
		}
		if err != nil || (m.Kind() != KindRequest && m.Kind() != KindNotification) {
			return
		}
		var env map[string]json.RawMessage
		if err := json.Unmarshal(in, &env); err != nil {
			t.Fatalf("encoding/json refused an accepted message: %v", err)
		}
		if id, ok := env["id"]; ok != m.ID().Present() || !bytes.Equal(id, m.ID().Raw()) {
			t.Fatalf("id view %q, encoding/json %q", m.ID().Raw(), id)
		}
		var method string
		if err := json.Unmarshal(env["method"], &method); err != nil || method != m.Method().String() {
			t.Fatalf("method view %q, encoding/json %q (%v)", m.Method().Text(), method, err)
		}
		for _, a := range []struct {
			name        string
			text, value []byte
		}{{"method", m.MethodText(), m.Method().Text()}, {"name", m.NameText(), m.Name().Text()},
			{"protocolVersion", m.ProtocolVersionText(), m.ProtocolVersion().Text()}} {
			if !bytes.Equal(a.text, a.value) || (a.text == nil) != (a.value == nil) {
				t.Fatalf("%sText %q, %s().Text() %q", a.name, a.text, a.name, a.value)
			}
		}
		if p, ok := env["params"]; ok != m.Params().Present() || !bytes.Equal(p, m.Params().Raw()) {
			t.Fatalf("params view %q, encoding/json %q", m.Params().Raw(), p)
		}
		if !m.Params().Present() {
			return
		}
		var params map[string]json.RawMessage
		if err := json.Unmarshal(env["params"], &params); err != nil {
			t.Fatalf("params: %v", err)
		}
		for key, v := range map[string]Value{"name": m.Name(), "arguments": m.Arguments(), "_meta": m.Meta()} {
			if p, ok := params[key]; ok != v.Present() || !bytes.Equal(p, v.Raw()) {
				t.Fatalf("%s view %q, encoding/json %q", key, v.Raw(), p)
			}
			if got := Lookup(m.Params().Raw(), key); !bytes.Equal(got.Raw(), v.Raw()) {
				t.Fatalf("Lookup(%s) = %q, want %q", key, got.Raw(), v.Raw())
			}
		}
	})
}
