// Package jsonnum reads JSON number literals exactly without computing their values.
//
// A literal such as 1e999999 is short but its value is not: turning it into a fraction
// (math/big) costs time and memory in proportion to the exponent, not to the literal. [Parse]
// instead records the sign, the significant digits (views into the literal) and the decimal
// exponent, in one pass and without allocating, and the methods answer the questions a
// validator or a decoder asks (is it an integer, how does it compare with another number,
// does it fit an int64) in time bounded by the literal's length. [Number.AppendCanonical]
// writes a short equivalent literal for code that must materialise the value.
package jsonnum

import "math"

// maxExponent bounds the exponent of a literal as it is read. Literals are far shorter than
// this, so a saturated exponent still orders numbers correctly: 1e(2^60) and 1e(2^61) compare
// equal, but no literal the transports accept can tell them apart from anything else.
const maxExponent = 1 << 60

// Number is a JSON number literal read exactly. Its value is
//
//	sign × 0.d1d2…dN × 10^Exp
//
// where d1…dN are the significant digits (d1 and dN nonzero) and N is 0 for zero, of either
// sign. A Number borrows the literal it was parsed from.
type Number struct {
	// Neg reports a leading minus sign. It is kept for zero too (-0), but zero compares equal
	// to zero whatever the sign.
	Neg bool
	// N counts the significant digits; 0 means the value is zero.
	N int
	// Exp is the decimal exponent of the scientific form 0.d1…dN × 10^Exp: the value's
	// magnitude is in [10^(Exp-1), 10^Exp). Meaningless when N is 0.
	Exp int64

	head, tail []byte // the significant digits are head followed by tail
}

// Parse reads lit, which must be a whole JSON number literal (RFC 8259: an optional minus, an
// integer part without leading zeros, an optional fraction, an optional exponent); ok is false
// otherwise. It does not allocate and runs in time linear in len(lit).
func Parse(lit []byte) (x Number, ok bool) {
	i := 0
	if i < len(lit) && lit[i] == '-' {
		x.Neg = true
		i++
	}
	intStart := i
	switch {
	case i < len(lit) && lit[i] == '0':
		i++
	case i < len(lit) && '1' <= lit[i] && lit[i] <= '9':
		for i < len(lit) && isDigit(lit[i]) {
			i++
		}
	default:
		return Number{}, false
	}
	intPart := lit[intStart:i]
	var frac []byte
	if i < len(lit) && lit[i] == '.' {
		i++
		start := i
		for i < len(lit) && isDigit(lit[i]) {
			i++
		}
		if i == start {
			return Number{}, false
		}
		frac = lit[start:i]
	}
	var exp int64
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		neg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			neg = lit[i] == '-'
			i++
		}
		start := i
		for ; i < len(lit) && isDigit(lit[i]); i++ {
			if exp < maxExponent {
				exp = exp*10 + int64(lit[i]-'0')
			}
		}
		if i == start {
			return Number{}, false
		}
		exp = min(exp, maxExponent)
		if neg {
			exp = -exp
		}
	}
	if i != len(lit) {
		return Number{}, false
	}
	// The digits intPart ++ frac, with the point after intPart: strip the leading zeros (each
	// lowers the exponent) and the trailing ones.
	head, tail := intPart, frac
	exp += int64(len(intPart))
	for len(head) > 0 && head[0] == '0' {
		head = head[1:]
		exp--
	}
	if len(head) == 0 {
		for len(tail) > 0 && tail[0] == '0' {
			tail = tail[1:]
			exp--
		}
	}
	for len(tail) > 0 && tail[len(tail)-1] == '0' {
		tail = tail[:len(tail)-1]
	}
	if len(tail) == 0 {
		for len(head) > 0 && head[len(head)-1] == '0' {
			head = head[:len(head)-1]
		}
	}
	x.head, x.tail = head, tail
	x.N = len(head) + len(tail)
	if x.N == 0 {
		x.Exp = 0
		return x, true
	}
	x.Exp = exp
	return x, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Zero reports whether the value is zero (0, -0, 0.0, 0e7, …).
func (x Number) Zero() bool { return x.N == 0 }

// Last returns the weight of the last significant digit: the value is D × 10^Last for the
// integer D made of the significant digits. 0 for zero.
func (x Number) Last() int64 {
	if x.N == 0 {
		return 0
	}
	return x.Exp - int64(x.N)
}

// Integer reports whether the value is an integer, as JSON Schema counts them: 1.0, 1e2,
// -0.0 and 1e999999 are integers, 1.5 and 1e-1 are not.
func (x Number) Integer() bool { return x.N == 0 || x.Last() >= 0 }

// Digit returns the i-th significant digit (0-based, i < N) as a byte '1'…'9' or '0'.
func (x Number) Digit(i int) byte {
	if i < len(x.head) {
		return x.head[i]
	}
	return x.tail[i-len(x.head)]
}

// sign returns -1, 0 or 1.
func (x Number) sign() int {
	switch {
	case x.N == 0:
		return 0
	case x.Neg:
		return -1
	}
	return 1
}

// Compare returns -1, 0 or +1 as a is less than, equal to or greater than b, exactly.
func Compare(a, b Number) int {
	sa, sb := a.sign(), b.sign()
	if sa != sb || sa == 0 {
		return cmpInt(sa, sb)
	}
	return sa * CompareMagnitude(a, b)
}

// CompareMagnitude compares |a| and |b| exactly.
func CompareMagnitude(a, b Number) int {
	switch {
	case a.N == 0 || b.N == 0:
		return cmpInt(min(a.N, 1), min(b.N, 1))
	case a.Exp != b.Exp:
		return cmpInt64(a.Exp, b.Exp)
	}
	n := min(a.N, b.N)
	for i := range n {
		if da, db := a.Digit(i), b.Digit(i); da != db {
			return cmpInt(int(da), int(db))
		}
	}
	return cmpInt(a.N, b.N) // the longer one has more nonzero digits
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Uint64 returns the magnitude of an integer value that fits a uint64; ok is false for a
// fraction or a larger magnitude. The sign is in Neg.
func (x Number) Uint64() (mag uint64, ok bool) {
	if x.N == 0 {
		return 0, true
	}
	if !x.Integer() || x.Exp > 20 {
		return 0, false
	}
	for i := range int(x.Exp) {
		d := uint64(0)
		if i < x.N {
			d = uint64(x.Digit(i) - '0')
		}
		if mag > (math.MaxUint64-d)/10 {
			return 0, false
		}
		mag = mag*10 + d
	}
	return mag, true
}

// Int64 returns an integer value that fits an int64; ok is false for a fraction or a value
// out of range.
func (x Number) Int64() (int64, bool) {
	mag, ok := x.Uint64()
	switch {
	case !ok:
		return 0, false
	case x.Neg && mag <= 1<<63:
		return int64(-mag), true // -(1<<63) wraps to itself, which is right
	case !x.Neg && mag < 1<<63:
		return int64(mag), true
	}
	return 0, false
}

// AppendCanonical appends a short literal of the same value: "0" for zero, otherwise the
// sign, the significant digits and, unless it is 0, the exponent of the last digit
// ("12005e-4" for 1.2005). Its length is N plus at most 22 bytes.
func (x Number) AppendCanonical(dst []byte) []byte {
	if x.N == 0 {
		return append(dst, '0')
	}
	if x.Neg {
		dst = append(dst, '-')
	}
	dst = append(dst, x.head...)
	dst = append(dst, x.tail...)
	if last := x.Last(); last != 0 {
		dst = append(dst, 'e')
		dst = appendInt(dst, last)
	}
	return dst
}

// AppendInteger appends an integer value as a plain decimal literal without exponent or
// fraction ("100" for 1e2, "0" for -0.0), when it has at most maxDigits digits; ok is false
// (and dst unchanged) for a fraction or a longer integer.
func (x Number) AppendInteger(dst []byte, maxDigits int) ([]byte, bool) {
	if x.N == 0 {
		return append(dst, '0'), true
	}
	if !x.Integer() || x.Exp > int64(maxDigits) {
		return dst, false
	}
	if x.Neg {
		dst = append(dst, '-')
	}
	dst = append(dst, x.head...)
	dst = append(dst, x.tail...)
	for range x.Last() {
		dst = append(dst, '0')
	}
	return dst, true
}

func appendInt(dst []byte, v int64) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(dst, b[i:]...)
}

// PlainInteger reports whether lit is an integer literal in its canonical decimal form: "0",
// or an optional minus and a nonzero digit followed by digits, so "-0", "+1", "01", "1.0" and
// "1e0" are not.
func PlainInteger(lit []byte) bool {
	i := 0
	if len(lit) > 0 && lit[0] == '-' {
		i = 1
	}
	switch {
	case i == len(lit):
		return false
	case lit[i] == '0':
		return len(lit) == 1
	}
	for ; i < len(lit); i++ {
		if !isDigit(lit[i]) {
			return false
		}
	}
	return true
}
