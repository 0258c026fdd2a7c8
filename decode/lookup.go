package decode

import "bytes"

// Lookup returns the member key of the JSON object obj, which must be a value from a message
// Decode accepted (its validity is assumed, not checked). Keys are compared on their
// unescaped content. A string member's [Value.Text] is its unescaped content, as the full
// decoder gives it: a view of obj when the string has no escapes (no allocation), a copy
// decoded into a buffer of its own when it has (one allocation). Raw, and the text of a
// string without escapes, borrow obj.
func Lookup(obj []byte, key string) Value {
	var found Value
	Members(obj, func(k, v []byte, vt Type) bool {
		if KeyEquals(k, key) {
			found = makeValue(v, vt)
			return false
		}
		return true
	})
	return found
}

// Members calls fn for each member of the JSON object obj (a value from a message Decode
// accepted), in order, with the key's raw content (between the quotes, escapes kept), the
// value's raw bytes and its type, until fn returns false.
func Members(obj []byte, fn func(key, value []byte, t Type) bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return
		}
		kend := StringEnd(obj, i)
		key := obj[i+1 : kend-1]
		i = skipSpace(obj, kend)
		i = skipSpace(obj, i+1) // past ':'
		vend, vt := skipValue(obj, i)
		if !fn(key, obj[i:vend], vt) {
			return
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

// Elements calls fn for each element of the JSON array arr (a value from a message Decode
// accepted), until fn returns false.
func Elements(arr []byte, fn func(value []byte, t Type) bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return
	}
	for i < len(arr) {
		vend, vt := skipValue(arr, i)
		if !fn(arr[i:vend], vt) {
			return
		}
		i = skipSpace(arr, vend)
		if i >= len(arr) || arr[i] != ',' {
			return
		}
		i = skipSpace(arr, i+1)
	}
}

// makeValue builds a Value from a raw literal. A string's text is a view of raw when it has
// no escapes; otherwise it is decoded into a new buffer, which the unescaped text always fits
// (an escape is never shorter than what it stands for).
func makeValue(raw []byte, t Type) Value {
	v := Value{raw: raw, typ: t}
	if t == TypeString && len(raw) >= 2 {
		body := raw[1 : len(raw)-1]
		if bytes.IndexByte(body, '\\') < 0 {
			v.text = body
		} else {
			v.text = appendUnescaped(make([]byte, 0, len(body)), body)
		}
	}
	return v
}

// ValueOf returns a Value for one raw JSON literal from a message Decode accepted, such as an
// element passed to an [Elements] callback. A string's text is unescaped as [Lookup]'s is.
func ValueOf(raw []byte, t Type) Value { return makeValue(raw, t) }

// KeyEquals compares a member's raw key, as [Members] gives it (between the quotes, escapes
// kept), with a plain key; an escaped key is decoded on the stack.
func KeyEquals(raw []byte, key string) bool {
	for _, c := range raw {
		if c == '\\' {
			var buf [64]byte // keys this long with escapes are rare; longer ones still compare
			return string(appendUnescaped(buf[:0], raw)) == key
		}
	}
	return string(raw) == key
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// StringEnd returns the index just past the JSON string literal starting at b[i] (a quote),
// or len(b) if it does not end. It does not validate the string: b is expected to be valid
// JSON, as a decoded message's views are.
func StringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the end of the value starting at b[i] and its type.
func skipValue(b []byte, i int) (int, Type) {
	if i >= len(b) {
		return i, TypeAbsent
	}
	switch c := b[i]; c {
	case '"':
		return StringEnd(b, i), TypeString
	case '{', '[':
		t := TypeObject
		if c == '[' {
			t = TypeArray
		}
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = StringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, t
				}
			}
		}
		return len(b), t
	case 't':
		return i + 4, TypeBool
	case 'f':
		return i + 5, TypeBool
	case 'n':
		return i + 4, TypeNull
	}
	t := TypeInteger
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '.' || c == 'e' || c == 'E':
			t = TypeNumber
		case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		default:
			return i, t
		}
	}
	return i, t
}
