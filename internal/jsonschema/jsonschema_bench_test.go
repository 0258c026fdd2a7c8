package jsonschema

import (
	"context"
	"strings"
	"testing"
)

type validateCase struct {
	shape, path string
	schema      string
	instance    string
	valid       bool
}

const nestedSchema = `{"type":"object","properties":{
	"query":{"type":"string","minLength":1},
	"limit":{"type":"integer","minimum":1,"maximum":100},
	"filters":{"type":"array","items":{"type":"object","properties":{"field":{"type":"string"},"op":{"enum":["eq","lt","gt"]},"value":{}},"required":["field","op"]}}
},"required":["query"]}`

var validateCases = []validateCase{
	{"echo", "auto", echoSchema, `{"text":"hello, world"}`, true},
	{"echo", "full", echoSchema, `{"text":"hello, world"}`, true},
	{"echo-invalid", "auto", echoSchema, `{"text":42}`, false},
	{"nested", "auto", nestedSchema, `{"query":"weather","limit":10,"filters":[{"field":"city","op":"eq","value":"Paris"},{"field":"temp","op":"gt","value":20}]}`, true},
	// Issue 10, defect 12: 20 integers with huge exponents once cost ~60 ms each.
	{"huge-exponents", "auto", numbersSchema, hugeNumbers, true},
}

const numbersSchema = `{"type":"object","properties":{"ms":{"type":"integer"},"list":{"type":"array","items":{"type":"integer"}}}}`

var hugeNumbers = `{"ms":1e999999,"list":[` + strings.TrimSuffix(strings.Repeat("1e999999,", 19), ",") + `]}`

// runValidate runs one benchmark case once per b.Loop iteration, or once when tb is a *testing.T.
func runValidate(tb testing.TB, c validateCase) {
	s, err := Compile([]byte(c.schema))
	if err != nil {
		tb.Fatal(err)
	}
	inst := []byte(c.instance)
	validate := s.Validate
	if c.path == "full" {
		validate = func(b []byte) error { return s.validateFull(context.Background(), b) }
	}
	check := func() {
		if err := validate(inst); (err == nil) != c.valid {
			tb.Fatalf("Validate(%s) = %v", inst, err)
		}
	}
	b, ok := tb.(*testing.B)
	if !ok {
		check()
		return
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(inst)))
	for b.Loop() {
		check()
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, c := range validateCases {
		b.Run("shape="+c.shape+"/path="+c.path, func(b *testing.B) { runValidate(b, c) })
	}
}

func TestBenchmarkValidate(t *testing.T) {
	for _, c := range validateCases {
		t.Run("shape="+c.shape+"/path="+c.path, func(t *testing.T) { runValidate(t, c) })
	}
}

func BenchmarkCompile(b *testing.B) {
	for _, c := range []struct{ shape, schema string }{{"echo", echoSchema}, {"nested", nestedSchema}} {
		b.Run("shape="+c.shape, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compile([]byte(c.schema)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDerive(b *testing.B) {
	b.Run("shape=echo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Derive[echoArgs](); err != nil {
				b.Fatal(err)
			}
		}
	})
}
