package main

import (
	"encoding/json"
	"testing"
)

// FuzzParseClientResult: a worker's output comes from another process; the parser never
// panics and accepts only a result with a revision and calls in both phases.
func FuzzParseClientResult(f *testing.F) {
	f.Add(peerResultLine)
	f.Add("noise\n" + peerResultLine + "\n")
	f.Add(`{"client":"x","protocol":"p","sequential":{"calls":1},"concurrent":{"calls":-1}}`)
	f.Add(`{"client":"x","protocol":"p","sequential":{"calls":1},"concurrent":{"calls":1}} trailing`)
	f.Fuzz(func(t *testing.T, out string) {
		r, err := parseClientResult([]byte(out))
		if err != nil {
			return
		}
		if r.Protocol == "" || r.Sequential.Calls <= 0 || r.Concurrent.Calls <= 0 {
			t.Fatalf("accepted %+v from %q", r, out)
		}
	})
}

// FuzzLoadArgument: any inputSchema either fails cleanly or gives the argument the load
// fills: one of its string properties, or the asked or default name when it lists none.
func FuzzLoadArgument(f *testing.F) {
	f.Add(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, "")
	f.Add(`{"properties":{"a":{"type":"string"},"b":{"type":["string","null"]}}}`, "b")
	f.Add(`{"required":["x"]}`, "")
	f.Add(`[]`, "q")
	f.Fuzz(func(t *testing.T, schema, want string) {
		arg, err := loadArgument(json.RawMessage(schema), want)
		if err != nil {
			return
		}
		if arg == "" {
			t.Fatalf("no argument from %q", schema)
		}
		var s struct {
			Properties map[string]struct {
				Type json.RawMessage `json:"type"`
			} `json:"properties"`
		}
		if json.Unmarshal([]byte(schema), &s) == nil && len(s.Properties) > 0 {
			var typ string
			if p, ok := s.Properties[arg]; !ok || json.Unmarshal(p.Type, &typ) != nil || typ != "string" {
				t.Fatalf("%q is not a string property of %q", arg, schema)
			}
		}
	})
}
