package defaults

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errInvalid = errors.New("pkg: invalid config")

type count int // a named integer kind, as some Config fields are

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name    string
		resolve func() (got any, err error)
		want    any
		wantErr string
	}{
		{"int negative", resolveOf(-3, 10), -3, "pkg: invalid config: X -3 is negative"},
		{"int zero", resolveOf(0, 10), 10, ""},
		{"int positive", resolveOf(7, 10), 7, ""},
		{"int64 negative", resolveOf(int64(-1), 1<<40), int64(-1), "pkg: invalid config: X -1 is negative"},
		{"int64 zero", resolveOf(int64(0), 1<<40), int64(1 << 40), ""},
		{"int64 positive", resolveOf(int64(1<<41), 1<<40), int64(1 << 41), ""},
		{"named int negative", resolveOf(count(-2), 5), count(-2), "pkg: invalid config: X -2 is negative"},
		{"named int zero", resolveOf(count(0), 5), count(5), ""},
		{"duration negative", resolveOf(-time.Second, time.Minute), -time.Second, "pkg: invalid config: X -1s is negative"},
		{"duration negative ns", resolveOf(time.Duration(-1), time.Minute), time.Duration(-1), "pkg: invalid config: X -1ns is negative"},
		{"duration zero", resolveOf(time.Duration(0), time.Minute), time.Minute, ""},
		{"duration positive", resolveOf(time.Millisecond, time.Minute), time.Millisecond, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.resolve()
			assert.Equal(t, tc.want, got)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
			assert.ErrorIs(t, err, errInvalid)
		})
	}
}

// resolveOf returns a call of Resolve on a field holding v, and what the field holds after it.
func resolveOf[T ~int | ~int64](v, def T) func() (any, error) {
	return func() (any, error) {
		err := Resolve(&v, def, "X", errInvalid)
		return v, err
	}
}
