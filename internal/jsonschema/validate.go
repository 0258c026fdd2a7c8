package jsonschema

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Validate reports whether instance, one JSON value (for a tool call, the arguments object;
// pass {} when the request has none), matches s. It returns nil or a [*ValidationError] whose
// message is safe to show to the client. Numbers keep their exact value (no float64 rounding),
// at a cost bounded by their literals' length (see numbers.go): a number the schema cannot
// check exactly within that cost is refused with a [*ValidationError] that quotes it, which
// only a schema with uniqueItems (or multipleOf, for integers of more than 100 digits) does.
//
// Flat object schemas (primitive-typed properties, required, additionalProperties) are checked
// on the raw bytes without allocating when the instance matches; everything else, and every
// failure, goes through the full validator.
func (s *Schema) Validate(instance []byte) error {
	return s.ValidateContext(context.Background(), instance)
}

// ValidateContext is [Schema.Validate] that gives up, returning ctx.Err(), when ctx ends
// while the instance is prepared for the validator (checked every 1024 values). The
// validator's own evaluation, which the instance size and the schema bound, is not
// interrupted.
func (s *Schema) ValidateContext(ctx context.Context, instance []byte) error {
	if s.flat != nil && s.flat.accepts(instance, false) {
		return nil
	}
	return s.validateFull(ctx, instance)
}

// ValidateDecoded is [Schema.Validate] for an object that is a value of a message the decode
// package accepted, so valid JSON with valid UTF-8 strings: the fast path checks neither.
// Passing anything else gives unspecified results.
func (s *Schema) ValidateDecoded(object []byte) error {
	return s.ValidateDecodedContext(context.Background(), object)
}

// ValidateDecodedContext is [Schema.ValidateDecoded] observing ctx as [Schema.ValidateContext]
// does.
func (s *Schema) ValidateDecodedContext(ctx context.Context, object []byte) error {
	if s.flat != nil && s.flat.accepts(object, true) {
		return nil
	}
	return s.validateFull(ctx, object)
}

// validateFull runs the full validator, bypassing the fast path.
func (s *Schema) validateFull(ctx context.Context, instance []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return &ValidationError{Reason: "not valid JSON"}
	}
	if v, err = s.prepare(ctx, v); err != nil {
		return err
	}
	err = s.sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ValidationError{Reason: "does not match the schema"}
	}
	return summarize(ve)
}

// summarize reduces the validator's error tree to its first leaf, in instance order.
func summarize(ve *jsonschema.ValidationError) *ValidationError {
	leaves := collectLeaves(ve, nil)
	type failure struct{ loc, reason string }
	fs := make([]failure, 0, len(leaves))
	for _, l := range leaves {
		fs = append(fs, failure{pointer(l.InstanceLocation), reason(l.ErrorKind)})
	}
	slices.SortFunc(fs, func(a, b failure) int {
		return cmp.Or(strings.Compare(a.loc, b.loc), strings.Compare(a.reason, b.reason))
	})
	fs = slices.Compact(fs)
	if len(fs) == 0 {
		return &ValidationError{Reason: "does not match the schema"}
	}
	return &ValidationError{Location: fs[0].loc, Reason: fs[0].reason, More: len(fs) - 1}
}

// collectLeaves descends through the error kinds that only group other errors (the root, a
// $ref, allOf). anyOf, oneOf, not and the other keywords stay whole: their branches' errors would
// describe schemas the value did not have to match.
func collectLeaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	switch e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				out = collectLeaves(c, out)
			}
			return out
		}
	}
	return append(out, e)
}

// maxTokenBytes bounds each instance-side string in a message (location token, property name).
const maxTokenBytes = 64

// Pointer renders an instance location (member names and array indexes) as a JSON Pointer for
// a [ValidationError], each token truncated to 64 bytes and with control characters replaced,
// as the validator's own locations are.
func Pointer(tokens []string) string { return pointer(tokens) }

// pointer renders an instance location as a JSON Pointer, with each token bounded and safe.
func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escapePointerToken(safeText(t)))
	}
	return sb.String()
}

// safeText truncates s to maxTokenBytes (on a rune boundary, marking the cut with "…") and
// replaces control characters and invalid UTF-8 with "?".
func safeText(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f || s[i] >= utf8.RuneSelf {
			clean = false
			break
		}
	}
	if clean && len(s) <= maxTokenBytes {
		return s
	}
	var sb strings.Builder
	for i, r := range s {
		if i >= maxTokenBytes {
			sb.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f || r == utf8.RuneError || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			r = '?'
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// quoteNames renders names as a comma-separated list of quoted, bounded strings, at most five.
func quoteNames(names []string) string {
	var sb strings.Builder
	for i, n := range names {
		if i == 5 {
			sb.WriteString(", …")
			break
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Quote(safeText(n)))
	}
	return sb.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ratString renders a schema-side bound.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// literals renders schema-side values as JSON, if they are all primitive and there are at
// most 10 of them.
func literals(values []any) (string, bool) {
	if len(values) == 0 || len(values) > 10 {
		return "", false
	}
	parts := make([]string, 0, len(values))
	for _, v := range values {
		switch v.(type) {
		case []any, map[string]any:
			return "", false
		}
		b, err := json.Marshal(v)
		if err != nil || len(b) > maxTokenBytes {
			return "", false
		}
		parts = append(parts, string(b))
	}
	return strings.Join(parts, ", "), true
}

// reason words one error kind without the instance's value.
func reason(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return "expected " + strings.Join(k.Want, " or ") + ", got " + k.Got
	case *kind.Required:
		return "missing required " + plural(len(k.Missing), "property ", "properties ") + quoteNames(k.Missing)
	case *kind.AdditionalProperties:
		names := slices.Sorted(slices.Values(k.Properties)) // the validator lists them in map order
		return "unexpected " + plural(len(names), "property ", "properties ") + quoteNames(names)
	case *kind.Enum:
		if s, ok := literals(k.Want); ok {
			return "must be one of " + s
		}
		return "is not one of the allowed values"
	case *kind.Const:
		if s, ok := literals([]any{k.Want}); ok {
			return "must be " + s
		}
		return "does not equal the required constant"
	case *kind.MinLength:
		return "must be at least " + strconv.Itoa(k.Want) + " characters long"
	case *kind.MaxLength:
		return "must be at most " + strconv.Itoa(k.Want) + " characters long"
	case *kind.Pattern:
		p := k.Want
		if len(p) > 2*maxTokenBytes {
			return "does not match the required pattern"
		}
		return "does not match pattern " + strconv.Quote(p)
	case *kind.Format:
		return "is not a valid " + k.Want
	case *kind.Minimum:
		return "must be >= " + ratString(k.Want)
	case *kind.Maximum:
		return "must be <= " + ratString(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be > " + ratString(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be < " + ratString(k.Want)
	case *kind.MultipleOf:
		return "must be a multiple of " + ratString(k.Want)
	case *kind.MinItems:
		return "must have at least " + strconv.Itoa(k.Want) + plural(k.Want, " item", " items")
	case *kind.MaxItems:
		return "must have at most " + strconv.Itoa(k.Want) + plural(k.Want, " item", " items")
	case *kind.MinProperties:
		return "must have at least " + strconv.Itoa(k.Want) + plural(k.Want, " property", " properties")
	case *kind.MaxProperties:
		return "must have at most " + strconv.Itoa(k.Want) + plural(k.Want, " property", " properties")
	case *kind.UniqueItems:
		return "items " + strconv.Itoa(k.Duplicates[0]) + " and " + strconv.Itoa(k.Duplicates[1]) + " are equal; items must be unique"
	case *kind.AdditionalItems:
		return "has too many items"
	case *kind.Contains:
		return "no item matches the contains schema"
	case *kind.MinContains:
		return "at least " + strconv.Itoa(k.Want) + " items must match the contains schema"
	case *kind.MaxContains:
		return "at most " + strconv.Itoa(k.Want) + " items may match the contains schema"
	case *kind.DependentRequired:
		return "property " + strconv.Quote(safeText(k.Prop)) + " requires " + quoteNames(k.Missing)
	case *kind.Dependency:
		return "property " + strconv.Quote(safeText(k.Prop)) + " requires " + quoteNames(k.Missing)
	case *kind.PropertyNames:
		return "property name " + strconv.Quote(safeText(k.Property)) + " is not allowed"
	case *kind.FalseSchema:
		return "is not allowed"
	case *kind.AnyOf:
		return "does not match any of the allowed schemas (anyOf)"
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			return "does not match any of the allowed schemas (oneOf)"
		}
		return "matches more than one of the schemas of oneOf"
	case *kind.Not:
		return "matches a schema it must not match (not)"
	case *kind.RefCycle:
		return "cannot be validated: the schema has a reference cycle"
	}
	if kw := k.KeywordPath(); len(kw) > 0 {
		return "does not satisfy " + strconv.Quote(kw[0])
	}
	return "does not match the schema"
}
