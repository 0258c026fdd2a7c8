//go:build !race

package jsonschema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAllocsValidateFlat: a valid instance of a flat schema is checked without allocating.
func TestAllocsValidateFlat(t *testing.T) {
	s := mustCompile(t, flatSchemas[1])
	echo := mustCompile(t, echoSchema)
	inst := []byte(`{"n":1,"x":1.5,"b":true,"z":null,"o":{"k":"v"},"a":[1,2],"any":"x","extra":1}`)
	msg := []byte(`{"text":"hello, world"}`)
	allocs := testing.AllocsPerRun(100, func() {
		if s.Validate(inst) != nil || echo.Validate(msg) != nil {
			t.Fatal("unexpected validation error")
		}
	})
	assert.Zero(t, allocs) // budget: 0
}
