package jsonschema

import "slices"

// FlatObject describes a flat object schema, one the fast path checks on raw bytes: each
// declared property's type, the required names, and whether undeclared names are refused.
// A caller that walks the instance anyway (to decode it) can check these rules itself and
// skip [Schema.Validate] when they hold; any doubt must still go to Validate.
type FlatObject struct {
	// Properties maps each declared property to its JSON Schema type: "string", "integer",
	// "number", "boolean", "null", "object", "array", or "" for any value.
	Properties map[string]string
	Required   []string // sorted
	// Closed is "additionalProperties": false.
	Closed bool
}

var typeByKind = map[valueKind]string{
	kindString: "string", kindInteger: "integer", kindNumber: "number", kindBoolean: "boolean",
	kindNull: "null", kindObject: "object", kindArray: "array",
}

// FlatObject returns the flat form of s, or false when s is not a flat object schema.
func (s *Schema) FlatObject() (FlatObject, bool) {
	f := s.flat
	if f == nil {
		return FlatObject{}, false
	}
	fo := FlatObject{Properties: map[string]string{}, Closed: f.closed}
	for bit, name := range f.names {
		if f.declared&(1<<bit) != 0 {
			fo.Properties[name] = typeByKind[f.kinds[bit]]
		}
		if f.required&(1<<bit) != 0 {
			fo.Required = append(fo.Required, name)
		}
	}
	slices.Sort(fo.Required)
	return fo, true
}
