package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// callArgs turns the key=value words of `fastmcp-bench call` into a tools/call arguments
// object. schema is the tool's inputSchema (nil when unknown): a property typed string keeps
// its value verbatim (so text=42 stays "42"), integer, number and boolean must parse as one,
// object and array must be JSON. Without a type, a value that is valid JSON is taken as JSON
// (n=3, on=true, xs=[1,2]) and anything else as a string. A key given twice is an error, so a
// typo cannot silently drop a value.
func callArgs(words []string, schema json.RawMessage) (json.RawMessage, error) {
	types, err := propertyTypes(schema)
	if err != nil {
		return nil, err
	}
	args := make(map[string]json.RawMessage, len(words))
	for _, w := range words {
		key, value, ok := strings.Cut(w, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("argument %q is not key=value", w)
		}
		if _, dup := args[key]; dup {
			return nil, fmt.Errorf("argument %q given twice", key)
		}
		v, err := argValue(types[key], value)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", key, err)
		}
		args[key] = v
	}
	return json.Marshal(args)
}

// argValue encodes one value for a property of JSON Schema type typ ("" when unknown).
func argValue(typ, value string) (json.RawMessage, error) {
	switch typ {
	case "string":
		return json.Marshal(value)
	case "integer":
		if _, err := strconv.ParseInt(value, 10, 64); err != nil {
			return nil, fmt.Errorf("%q is not an integer", value)
		}
		return json.RawMessage(value), nil
	case "number":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", value)
		}
		return json.Marshal(f)
	case "boolean":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean", value)
		}
		return json.Marshal(b)
	case "object", "array":
		if !json.Valid([]byte(value)) {
			return nil, fmt.Errorf("%q is not JSON (the property is an %s)", value, typ)
		}
		return compact(value), nil
	}
	if json.Valid([]byte(value)) {
		return compact(value), nil
	}
	return json.Marshal(value)
}

func compact(value string) json.RawMessage {
	var b bytes.Buffer
	_ = json.Compact(&b, []byte(value)) // value is valid JSON: checked by the callers
	return b.Bytes()
}

// propertyTypes maps each property of an object schema to its type, when that is one string
// (a list of types, or none, leaves the value's own JSON shape to decide).
func propertyTypes(schema json.RawMessage) (map[string]string, error) {
	if len(schema) == 0 {
		return nil, nil
	}
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("tool inputSchema: %w", err)
	}
	types := make(map[string]string, len(s.Properties))
	for name, p := range s.Properties {
		var t string
		if json.Unmarshal(p.Type, &t) == nil {
			types[name] = t
		}
	}
	return types, nil
}
