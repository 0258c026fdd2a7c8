package jsonnum

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		lit     string
		neg     bool
		digits  string
		exp     int64
		integer bool
	}{
		{"0", false, "", 0, true},
		{"-0", true, "", 0, true},
		{"-0.0", true, "", 0, true},
		{"0e999999", false, "", 0, true},
		{"0.000", false, "", 0, true},
		{"1", false, "1", 1, true},
		{"-7", true, "7", 1, true},
		{"100", false, "1", 3, true},
		{"1.0", false, "1", 1, true},
		{"1e2", false, "1", 3, true},
		{"5e0", false, "5", 1, true},
		{"1.5", false, "15", 1, false},
		{"120.0500", false, "12005", 3, false},
		{"0.00123", false, "123", -2, false},
		{"0.5e1", false, "5", 1, true},
		{"12.5E+1", false, "125", 3, true},
		{"125E-1", false, "125", 2, false},
		{"1e999999", false, "1", 1000000, true},
		{"1e-999999", false, "1", -999998, false},
		{"1e3999999", false, "1", 4000000, true},
		{"-1.000000000000000000001", true, "1000000000000000000001", 1, false},
		{"9007199254740993", false, "9007199254740993", 16, true},
	} {
		t.Run(tc.lit, func(t *testing.T) {
			x, ok := Parse([]byte(tc.lit))
			require.True(t, ok)
			assert.Equal(t, tc.neg, x.Neg)
			var digits []byte
			for i := range x.N {
				digits = append(digits, x.Digit(i))
			}
			assert.Equal(t, tc.digits, string(digits))
			if x.N > 0 {
				assert.Equal(t, tc.exp, x.Exp)
			}
			assert.Equal(t, tc.integer, x.Integer())
		})
	}
}

func TestParseRefusesNonJSON(t *testing.T) {
	for _, lit := range []string{"", "-", "+1", "01", "-01", "1.", ".5", "1e", "1e+", "0x1p0", "1_0_0", "Infinity", "NaN", "1 ", " 1", "1.0.0", "1e2e3", "--1", "١"} {
		_, ok := Parse([]byte(lit))
		assert.False(t, ok, lit)
	}
}

func TestSaturatedExponent(t *testing.T) {
	huge, ok := Parse([]byte("1e" + strings.Repeat("9", 40)))
	require.True(t, ok)
	assert.True(t, huge.Integer())
	one, _ := Parse([]byte("1"))
	assert.Equal(t, 1, Compare(huge, one))
	tiny, ok := Parse([]byte("-1e-" + strings.Repeat("9", 40)))
	require.True(t, ok)
	assert.False(t, tiny.Integer())
	assert.Equal(t, -1, Compare(tiny, Number{}))
	assert.Equal(t, 1, Compare(Number{}, tiny))
}

func TestIntegers(t *testing.T) {
	for _, tc := range []struct {
		lit    string
		i64    int64
		ok64   bool
		plain  string // AppendInteger with 20 digits, "" if refused
		canon  string
		isPlan bool // PlainInteger
	}{
		{"0", 0, true, "0", "0", true},
		{"-0", 0, true, "0", "0", false},
		{"-0.0", 0, true, "0", "0", false},
		{"1e2", 100, true, "100", "1e2", false},
		{"1.0", 1, true, "1", "1", false},
		{"5e0", 5, true, "5", "5", false},
		{"-12.50e1", -125, true, "-125", "-125", false},
		{"9223372036854775807", 9223372036854775807, true, "9223372036854775807", "9223372036854775807", true},
		{"-9223372036854775808", -9223372036854775808, true, "-9223372036854775808", "-9223372036854775808", true},
		{"9223372036854775808", 0, false, "9223372036854775808", "9223372036854775808", true},
		{"18446744073709551616", 0, false, "18446744073709551616", "18446744073709551616", true},
		{"1e20", 0, false, "100000000000000000000", "1e20", false},
		{"1e21", 0, false, "", "1e21", false},
		{"1.5", 0, false, "", "15e-1", false},
		{"1e999999", 0, false, "", "1e999999", false},
	} {
		t.Run(tc.lit, func(t *testing.T) {
			x, ok := Parse([]byte(tc.lit))
			require.True(t, ok)
			v, ok := x.Int64()
			assert.Equal(t, tc.ok64, ok)
			assert.Equal(t, tc.i64, v)
			plain, ok := x.AppendInteger(nil, 21)
			assert.Equal(t, tc.plain != "", ok)
			assert.Equal(t, tc.plain, string(plain))
			assert.Equal(t, tc.canon, string(x.AppendCanonical(nil)))
			assert.Equal(t, tc.isPlan, PlainInteger([]byte(tc.lit)))
		})
	}
}

func TestPlainInteger(t *testing.T) {
	for lit, want := range map[string]bool{
		"0": true, "7": true, "-7": true, "100": true, "9007199254740993": true,
		"": false, "-": false, "-0": false, "00": false, "01": false, "+1": false, "1.0": false,
		"1e0": false, "0x1": false, "1_0": false, " 1": false, "1 ": false,
	} {
		assert.Equal(t, want, PlainInteger([]byte(lit)), lit)
	}
}

// TestParseAllocs: reading a number, even one with a huge exponent, allocates nothing.
func TestParseAllocs(t *testing.T) {
	a, b := []byte("1e999999"), []byte("-123.4500e-7")
	allocs := testing.AllocsPerRun(100, func() {
		x, _ := Parse(a)
		y, _ := Parse(b)
		if Compare(x, y) != 1 || !x.Integer() || y.Integer() {
			t.Fatal("wrong classification")
		}
	})
	assert.Zero(t, allocs)
}

// exactRat returns the value of a short literal with math/big, the reference.
func exactRat(t *testing.T, lit string) *big.Rat {
	r, ok := new(big.Rat).SetString(lit)
	require.True(t, ok, lit)
	return r
}

// shortLiteral reports whether lit is a JSON number small enough for math/big to read fast.
func shortLiteral(lit string) bool {
	if len(lit) > 64 || !json.Valid([]byte(lit)) {
		return false
	}
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
		return err == nil && e > -400 && e < 400
	}
	return true
}

// FuzzNumber compares the classification of short literals with exact arithmetic.
func FuzzNumber(f *testing.F) {
	for _, s := range [][2]string{
		{"0", "-0"}, {"1", "1.0"}, {"1e2", "100"}, {"5e0", "5"}, {"-0.0", "0e5"}, {"1.5", "15e-1"},
		{"9007199254740992", "9007199254740993"}, {"1.000000000000000000001", "1"},
		{"120.0500", "1.2005e2"}, {"0.00123", "123e-5"}, {"-9223372036854775808", "9223372036854775807"},
		{"18446744073709551615", "1.8446744073709551615e19"}, {"1e308", "1e-308"}, {"-1e-5", "-1e-6"},
		{"12345678901234567890.5", "12345678901234567890"}, {"1e20", "100000000000000000000"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		x, okx := Parse([]byte(a))
		// A JSON text that starts like a number and ends with a digit is one number literal.
		want := json.Valid([]byte(a)) && a != "" && (a[0] == '-' || isDigit(a[0])) && isDigit(a[len(a)-1])
		if okx != want {
			t.Fatalf("Parse(%q) = %v, want %v", a, okx, want)
		}
		if !okx || !shortLiteral(a) {
			return
		}
		ra := exactRat(t, a)
		if x.Integer() != ra.IsInt() {
			t.Fatalf("%s: Integer() = %v, exact %v", a, x.Integer(), ra.IsInt())
		}
		if x.Zero() != (ra.Sign() == 0) {
			t.Fatalf("%s: Zero() = %v", a, x.Zero())
		}
		canon := string(x.AppendCanonical(nil))
		if exactRat(t, canon).Cmp(ra) != 0 {
			t.Fatalf("%s: canonical %s has another value", a, canon)
		}
		if len(canon) > x.N+22 {
			t.Fatalf("%s: canonical %s is too long", a, canon)
		}
		if v, ok := x.Int64(); ok != (ra.IsInt() && ra.Num().IsInt64()) || ok && ra.Num().Int64() != v {
			t.Fatalf("%s: Int64() = %d, %v", a, v, ok)
		}
		if plain, ok := x.AppendInteger(nil, 30); ok {
			if !PlainInteger(plain) || exactRat(t, string(plain)).Cmp(ra) != 0 {
				t.Fatalf("%s: AppendInteger = %s", a, plain)
			}
		} else if ra.IsInt() && len(ra.Num().String()) <= 30 {
			t.Fatalf("%s: AppendInteger refused a short integer", a)
		}
		if PlainInteger([]byte(a)) && ra.Num().String() != a {
			t.Fatalf("%s: PlainInteger accepted a non-canonical form", a)
		}
		y, oky := Parse([]byte(b))
		if !oky || !shortLiteral(b) {
			return
		}
		if got, want := Compare(x, y), ra.Cmp(exactRat(t, b)); got != want {
			t.Fatalf("Compare(%s, %s) = %d, exact %d", a, b, got, want)
		}
	})
}
