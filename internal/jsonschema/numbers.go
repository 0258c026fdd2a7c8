package jsonschema

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fastmcp-go/fastmcp/internal/jsonnum"
)

// Numbers in the full validator.
//
// The validator computes with exact fractions (math/big): "type":"integer", minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, multipleOf, const, enum and uniqueItems each turn the
// instance's number into one. That costs in proportion to the value, not to the literal:
// 1e999999 is 8 bytes and ~60 ms. So no instance number reaches the validator as it was
// written unless it is small ([maxExactDigits] significant digits, exponents within
// [maxExactExponent] plus what the schema's own numbers need). Every other number is replaced,
// before validation, by a short stand-in that each of those keywords judges exactly as it
// judges the original, against this schema's constants:
//
//   - a magnitude above every constant keeps its sign and whether it is an integer
//     (1e999999 becomes 1e1 when the schema's constants are below 10);
//   - otherwise the digits down to one place below the finest digit of any constant (and of
//     the units) are kept, and any further nonzero digits become one "sticky" digit just
//     below: the order against every constant, equality, integer-ness and multipleOf (a
//     number with a nonzero digit finer than a constant's is no multiple of it) are kept;
//   - with multipleOf in the schema, an integer of huge magnitude keeps its significant
//     digits and gets an exponent large enough that the powers of 2 and 5 of every constant
//     divide it, as they divide the original.
//
// The one keyword no stand-in can serve is uniqueItems, which compares instance numbers with
// each other: under a schema that uses it, a number inside an array (at any depth) outside the
// exact range is refused with a message that quotes it, as is an integer too long for the
// multipleOf stand-in. Numbers in a schema itself must be small: [Compile] refuses others.

// Bounds of the exact range.
const (
	// maxExactDigits bounds the significant digits of a number given to the validator as it is.
	maxExactDigits = 100
	// maxExactExponent bounds the exponents (of the first and of the last significant digit)
	// of a number given to the validator as it is; the schema's numbers can widen it.
	maxExactExponent = 400
	// maxLiteralBytes: a longer literal in the exact range (1.000…0) is given in its
	// canonical form, so the validator does not parse the padding.
	maxLiteralBytes = 64
	// cancelCheckNodes is how many instance values are prepared between context checks.
	cancelCheckNodes = 1024
)

// numberBounds summarises the numbers of a schema document, for the stand-ins.
type numberBounds struct {
	hi    int64 // the largest Exp of a nonzero number, at least 0: every |c| < 10^hi
	lo    int64 // the smallest Last of a nonzero number, at most 0: no digit finer than 10^lo
	sat   int64 // the largest Last+4N: 10^sat·D is divisible by the powers of 2 and 5 of every c
	exact int64 // the exponent bound of the exact range
	// multipleOf and uniqueItems appear in the document (as any object key, a superset of
	// where they are keywords).
	multipleOf, unique bool
}

// newNumberBounds walks a schema document (as jsonschema.UnmarshalJSON decodes it). It
// reports false, with the JSON Pointer of the number, when a number is outside the exact range.
func newNumberBounds(doc any) (numberBounds, string, bool) {
	b := numberBounds{}
	bad := ""
	var walk func(v any, ptr string) bool
	walk = func(v any, ptr string) bool {
		switch v := v.(type) {
		case json.Number:
			x, ok := jsonnum.Parse([]byte(v))
			if !ok || x.N > maxExactDigits || x.Exp > maxExactExponent || x.Last() < -maxExactExponent {
				bad = ptr
				return false
			}
			if x.N > 0 {
				b.hi = max(b.hi, x.Exp)
				b.lo = min(b.lo, x.Last())
				b.sat = max(b.sat, x.Last()+4*int64(x.N))
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				switch k {
				case "multipleOf":
					b.multipleOf = true
				case "uniqueItems":
					b.unique = b.unique || v[k] == true
				}
				if !walk(v[k], ptr+"/"+escapePointerToken(k)) {
					return false
				}
			}
		case []any:
			for i, e := range v {
				if !walk(e, ptr+"/"+strconv.Itoa(i)) {
					return false
				}
			}
		}
		return true
	}
	if !walk(doc, "") {
		return b, cmp.Or(bad, "the root"), false
	}
	b.exact = max(maxExactExponent, b.sat+maxExactDigits, b.hi+2, 2-b.lo)
	return b, "", true
}

// inExactRange reports whether the validator may compute with x as it is.
func (b *numberBounds) inExactRange(x jsonnum.Number) bool {
	return x.N == 0 || x.N <= maxExactDigits && x.Exp <= b.exact && x.Last() >= -b.exact
}

// standIn appends a short literal that the numeric keywords of the schema judge as they judge
// x, or reports false when there is none (see the comment at the top of the file). It is
// correct for any x, in the exact range or not;
// inArray reports that x is inside an array, where uniqueItems may compare it with others.
func (b *numberBounds) standIn(dst []byte, x jsonnum.Number, inArray bool) ([]byte, bool) {
	if x.N == 0 {
		return append(dst, '0'), true
	}
	if b.unique && inArray {
		return dst, false
	}
	h := b.hi + 1 // every constant is below 10^(h-1)
	p := b.lo - 1 // every constant's digits, and the units, weigh more than 10^p
	if x.Neg {
		dst = append(dst, '-')
	}
	if x.Exp > h { // |x| >= 10^h
		switch {
		case !x.Integer():
			if b.multipleOf && x.Last() > p {
				return dst, false // it could be a multiple: that depends on all its digits
			}
			dst = append(dst, '1') // 10^h + 10^p: above the constants, not an integer
			for range h - p - 1 {
				dst = append(dst, '0')
			}
			return appendExponent(append(dst, '1'), p), true
		case !b.multipleOf:
			return appendExponent(append(dst, '1'), h), true
		case x.N > maxExactDigits || x.Last() < b.sat:
			return dst, false
		}
		for i := range x.N {
			dst = append(dst, x.Digit(i))
		}
		return appendExponent(dst, max(b.sat, h)), true
	}
	// The digits weighing 10^p or more are kept; finer nonzero ones become one digit at p-1.
	keep := x.Exp - p
	switch {
	case keep <= 0: // |x| < 10^p
		return appendExponent(append(dst, '1'), p-1), true
	case keep >= int64(x.N):
		for i := range x.N {
			dst = append(dst, x.Digit(i))
		}
		return appendExponent(dst, x.Last()), true
	}
	for i := range int(keep) {
		dst = append(dst, x.Digit(i))
	}
	return appendExponent(append(dst, '1'), p-1), true
}

func appendExponent(dst []byte, e int64) []byte {
	if e == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, 'e'), e, 10)
}

// maxQuotedNumber bounds a number quoted in an error message.
const maxQuotedNumber = 32

// QuoteNumber returns the literal lit for an error message, cut to 32 bytes with "…".
func QuoteNumber(lit string) string {
	if len(lit) <= maxQuotedNumber {
		return lit
	}
	return lit[:maxQuotedNumber-1] + "…"
}

// preparer rewrites the numbers of a decoded instance for the validator (see the top of the
// file) and checks the context every cancelCheckNodes values.
type preparer struct {
	ctx    context.Context
	b      *numberBounds
	nodes  int
	arrays int // how many arrays enclose the current value
	buf    []byte
	failed int // numbers that have no stand-in
}

// value rewrites the numbers inside v, an object or an array, in place.
func (p *preparer) value(v any) error {
	p.nodes++
	if p.nodes%cancelCheckNodes == 0 {
		if err := p.ctx.Err(); err != nil {
			return err
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if n, ok := e.(json.Number); ok {
				if sub, changed := p.number(n); changed {
					v[k] = sub
				}
			} else if maybeNumbers(e) {
				if err := p.value(e); err != nil {
					return err
				}
			}
		}
	case []any:
		p.arrays++
		for i, e := range v {
			if n, ok := e.(json.Number); ok {
				if sub, changed := p.number(n); changed {
					v[i] = sub
				}
			} else if maybeNumbers(e) {
				if err := p.value(e); err != nil {
					return err
				}
			}
		}
		p.arrays--
	}
	return nil
}

// maybeNumbers reports whether v is or may hold a number.
func maybeNumbers(v any) bool {
	switch v.(type) {
	case json.Number, map[string]any, []any:
		return true
	}
	return false
}

// number returns the literal the validator gets for n, and whether it differs from n. A
// number without a stand-in is counted in p.failed and left as it is.
func (p *preparer) number(n json.Number) (json.Number, bool) {
	p.nodes++
	x, ok := jsonnum.Parse([]byte(n))
	switch {
	case !ok:
		return n, false // not produced by encoding/json; the validator will say what it is
	case x.Zero():
		return "0", n != "0" // whatever its exponent: big.Rat computes 10^e even for 0e999999
	case p.b.inExactRange(x):
		if len(n) <= maxLiteralBytes {
			return n, false
		}
		p.buf = x.AppendCanonical(p.buf[:0])
		return json.Number(p.buf), true
	}
	var sub bool
	p.buf, sub = p.b.standIn(p.buf[:0], x, p.arrays > 0)
	if sub {
		return json.Number(p.buf), true
	}
	p.failed++
	return n, false
}

// prepare rewrites the numbers of v in place for the validator; it returns a
// *ValidationError for numbers that cannot be checked, or the context's error.
func (s *Schema) prepare(ctx context.Context, v any) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := preparer{ctx: ctx, b: &s.numbers}
	if n, ok := v.(json.Number); ok { // the instance is one number
		if sub, changed := p.number(n); changed {
			v = sub
		}
	} else if maybeNumbers(v) {
		if err := p.value(v); err != nil {
			return nil, err
		}
	}
	if p.failed > 0 {
		return nil, s.numberFailure(v)
	}
	return v, nil
}

// numberFailure locates the numbers of v (prepared) that have no stand-in, for the error:
// the first in pointer order, and how many more.
func (s *Schema) numberFailure(v any) error {
	var locs []string
	var walk func(v any, path []string, arrays int)
	walk = func(v any, path []string, arrays int) {
		switch v := v.(type) {
		case json.Number:
			x, ok := jsonnum.Parse([]byte(v))
			if ok && !s.numbers.inExactRange(x) {
				if _, sub := s.numbers.standIn(nil, x, arrays > 0); !sub {
					locs = append(locs, pointer(path)+"\x00"+string(v))
				}
			}
		case map[string]any:
			for k, e := range v {
				walk(e, append(path[:len(path):len(path)], k), arrays)
			}
		case []any:
			for i, e := range v {
				walk(e, append(path[:len(path):len(path)], strconv.Itoa(i)), arrays+1)
			}
		}
	}
	walk(v, nil, 0)
	slices.Sort(locs)
	loc, lit, _ := strings.Cut(locs[0], "\x00")
	return &ValidationError{
		Location: loc,
		Reason: "number " + QuoteNumber(lit) + " is outside the range this schema can check (at most " +
			strconv.Itoa(maxExactDigits) + " significant digits, a magnitude below 1e" + strconv.Itoa(maxExactExponent) +
			", no digit finer than 1e-" + strconv.Itoa(maxExactExponent) + ")",
		More: len(locs) - 1,
	}
}
