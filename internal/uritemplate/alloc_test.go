//go:build !race

package uritemplate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAllocsMatchAppend(t *testing.T) {
	tests := []struct {
		name     string
		template string
		uri      string
		budget   float64
	}{
		{"no decoding", "db://{schema}/{table}.json", "db://public/users.json", 0},
		{"miss", "db://{schema}/{table}.json", "db://public/users.xml", 0},
		{"32 vars", manyDotVars(MaxVars), "x://1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17.18.19.20.21.22.23.24.25.26.27.28.29.30.31.32", 0},
		{"one decoded value", "db://{schema}/{table}.json", "db://public/user%20log.json", 1},
		{"two decoded values", "db://{schema}/{table}.json", "db://p%75blic/user%20log.json", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tpl := MustParse(tc.template)
			dst := make([]Var, 0, MaxVars)
			allocs := testing.AllocsPerRun(100, func() {
				dst, _ = tpl.MatchAppend(dst[:0], tc.uri)
			})
			assert.Equal(t, tc.budget, allocs) //nolint:testifylint // exact budget
		})
	}
}

func TestAllocsMatch(t *testing.T) {
	tpl := MustParse("db://{schema}/{table}.json")
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = tpl.Match("db://public/users.json")
	})
	assert.LessOrEqual(t, allocs, float64(2), "budget: the map only")
}
