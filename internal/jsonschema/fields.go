package jsonschema

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// jsonField is one struct field as encoding/json sees it: exported (or promoted through an
// embedded struct), with its JSON name and options.
type jsonField struct {
	name   string              // JSON object key
	index  []int               // field index sequence from the outer struct
	sf     reflect.StructField // the declaring field (type, tags)
	tagged bool                // the name comes from a json tag
	omit   bool                // omitempty or omitzero: the key may be absent
	quoted bool                // the ",string" option applies: the value travels as a JSON string
}

// jsonFields lists the fields encoding/json encodes and decodes for struct type t, in field order,
// following the encoding/json documentation: embedded structs without a json name are flattened;
// among fields with the same name the least nested wins, then a tagged one; remaining ties drop
// all of them, without error.
func jsonFields(t reflect.Type) []jsonField {
	type level struct {
		typ   reflect.Type
		index []int
	}
	var candidates []jsonField
	current := []level{{typ: t}}
	count := map[reflect.Type]int{t: 1}
	visited := map[reflect.Type]bool{}
	for len(current) > 0 {
		var next []level
		nextCount := map[reflect.Type]int{}
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := range lv.typ.NumField() {
				sf := lv.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validJSONName(name) {
					name = ""
				}
				index := append(slices.Clip(lv.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					// Flatten: its fields are candidates one level deeper. A struct type
					// embedded several times at one level is scanned once, and its fields
					// are recorded twice below so that they cancel out.
					nextCount[ft]++
					if nextCount[ft] == 1 {
						next = append(next, level{typ: ft, index: index})
					}
					continue
				}
				f := jsonField{name: name, index: index, sf: sf, tagged: name != ""}
				if f.name == "" {
					f.name = sf.Name
				}
				for opt := range strings.SplitSeq(opts, ",") {
					switch opt {
					case "omitempty", "omitzero":
						f.omit = true
					case "string":
						switch ft.Kind() {
						case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
							reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
							f.quoted = true
						}
					}
				}
				candidates = append(candidates, f)
				if count[lv.typ] > 1 {
					candidates = append(candidates, f)
				}
			}
		}
		current, count = next, nextCount
	}

	// Resolve name conflicts: group by name, keep the dominant field of each group.
	slices.SortStableFunc(candidates, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return cmp.Compare(len(a.index), len(b.index))
	})
	var out []jsonField
	for i := 0; i < len(candidates); {
		j := i + 1
		for j < len(candidates) && candidates[j].name == candidates[i].name {
			j++
		}
		if f, ok := dominant(candidates[i:j]); ok {
			out = append(out, f)
		}
		i = j
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}

// dominant picks the field that wins among fields sharing one JSON name, sorted by depth: of the
// least nested ones, the tagged ones if any; it wins if it is alone.
func dominant(fields []jsonField) (jsonField, bool) {
	depth := len(fields[0].index)
	var all, tagged []jsonField
	for _, f := range fields {
		if len(f.index) > depth {
			break
		}
		all = append(all, f)
		if f.tagged {
			tagged = append(tagged, f)
		}
	}
	if len(tagged) > 0 {
		all = tagged
	}
	return all[0], len(all) == 1
}

// validJSONName mirrors the characters encoding/json accepts in a json tag name; an invalid name
// falls back to the Go field name.
func validJSONName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
