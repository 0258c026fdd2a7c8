package jsonschema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// fieldOptions holds the parsed `jsonschema` struct tag of one field.
type fieldOptions struct {
	required, optional bool
	enum               []string // raw values, converted for the field's type when applied
	hasEnum            bool
	minimum, maximum   string // raw values
	minLength          int    // -1 if unset (as the other counts)
	maxLength          int
	minItems           int
	maxItems           int
	format             string
}

// parseOptions parses a `jsonschema` tag: comma-separated options, each a flag ("required",
// "optional") or key=value ("enum=a|b|c", "minimum=0", "maximum=10", "minLength=1",
// "maxLength=64", "minItems=1", "maxItems=10", "format=email"). Values cannot contain commas.
func parseOptions(tag string) (fieldOptions, error) {
	o := fieldOptions{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	if tag == "" {
		return o, nil
	}
	seen := map[string]bool{}
	for opt := range strings.SplitSeq(tag, ",") {
		k, v, hasValue := strings.Cut(opt, "=")
		if seen[k] {
			return o, fmt.Errorf("option %q repeated", k)
		}
		seen[k] = true
		var err error
		switch k {
		case "required", "optional":
			if hasValue {
				return o, fmt.Errorf("option %q takes no value", k)
			}
			o.required = o.required || k == "required"
			o.optional = o.optional || k == "optional"
		case "enum":
			if v == "" {
				return o, fmt.Errorf("option enum needs at least one value")
			}
			o.enum = strings.Split(v, "|")
			o.hasEnum = true
		case "minimum":
			o.minimum, err = numberLiteral(v)
		case "maximum":
			o.maximum, err = numberLiteral(v)
		case "minLength":
			o.minLength, err = countValue(v)
		case "maxLength":
			o.maxLength, err = countValue(v)
		case "minItems":
			o.minItems, err = countValue(v)
		case "maxItems":
			o.maxItems, err = countValue(v)
		case "format":
			if v == "" {
				return o, fmt.Errorf("option format needs a value")
			}
			o.format = v
		default:
			return o, fmt.Errorf("unknown option %q", opt)
		}
		if err != nil {
			return o, fmt.Errorf("option %s: %w", k, err)
		}
	}
	if o.required && o.optional {
		return o, fmt.Errorf("options required and optional conflict")
	}
	return o, nil
}

// numberLiteral returns v as a canonical JSON number literal.
func numberLiteral(v string) (string, error) {
	if i, err := strconv.ParseInt(v, 10, 64); err == nil {
		return strconv.FormatInt(i, 10), nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("%q is not a finite number", v)
	}
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

func countValue(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a non-negative integer", v)
	}
	return n, nil
}

// apply sets the options on n, the schema of the field; they must suit its JSON type.
func (o *fieldOptions) apply(n *node) error {
	need := func(opt string, types ...string) error {
		for _, t := range types {
			if n.typ == t {
				return nil
			}
		}
		have := n.typ
		if have == "" {
			have = "unconstrained"
		}
		return fmt.Errorf("option %s applies to %s fields, not %s", opt, strings.Join(types, ", "), have)
	}
	if o.hasEnum {
		if err := need("enum", "string", "integer", "number", "boolean"); err != nil {
			return err
		}
		for _, v := range o.enum {
			lit, err := enumLiteral(n.typ, v)
			if err != nil {
				return fmt.Errorf("option enum: %w", err)
			}
			n.enum = append(n.enum, lit)
		}
	}
	if o.minimum != "" || o.maximum != "" {
		if err := need("minimum/maximum", "integer", "number"); err != nil {
			return err
		}
		if o.minimum != "" {
			n.minimum = o.minimum
		}
		if o.maximum != "" {
			n.maximum = o.maximum
		}
	}
	if o.minLength >= 0 || o.maxLength >= 0 || o.format != "" {
		if err := need("minLength/maxLength/format", "string"); err != nil {
			return err
		}
		n.minLength, n.maxLength = o.minLength, o.maxLength
		if o.format != "" {
			n.format = o.format
		}
	}
	if o.minItems >= 0 || o.maxItems >= 0 {
		if err := need("minItems/maxItems", "array"); err != nil {
			return err
		}
		n.minItems, n.maxItems = o.minItems, o.maxItems
	}
	return nil
}

// enumLiteral converts one enum value of a tag to a JSON literal of type typ.
func enumLiteral(typ, v string) (string, error) {
	switch typ {
	case "string":
		return string(appendString(nil, v)), nil
	case "integer":
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", fmt.Errorf("%q is not an integer", v)
		}
		return strconv.FormatInt(i, 10), nil
	case "number":
		return numberLiteral(v)
	default: // boolean
		if v != "true" && v != "false" {
			return "", fmt.Errorf("%q is not a boolean", v)
		}
		return v, nil
	}
}
