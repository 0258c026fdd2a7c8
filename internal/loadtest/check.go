package loadtest

import (
	"bytes"
	"errors"
	"strconv"
)

// The response checker validates a JSON-RPC reply without allocating: a small scanner walks
// the top-level members, validating the syntax of every value it skips, and the checks
// compare raw bytes (the id literal, the echoed text). It must cost far less than the
// request it checks, or the generator would limit the figures it measures.

var errSyntax = errors.New("loadtest: invalid JSON")

const maxDepth = 64

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i] (after spaces).
func skipValue(b []byte, i, depth int) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, errSyntax
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		return skipObject(b, i, depth+1, nil)
	case c == '[':
		return skipArray(b, i, depth+1, nil)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j, nil
	}
	return 0, errSyntax
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errSyntax
	}
	return i + len(lit), nil
}

// skipString returns the index past the string literal at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		default:
			if b[j] < 0x20 {
				return 0, errSyntax
			}
		}
	}
	return 0, errSyntax
}

// skipObject returns the index past the object at b[i] == '{', calling member (when not
// nil) with each key (without quotes, unescaped keys only) and raw value.
func skipObject(b []byte, i, depth int, member func(key, val []byte)) (int, error) {
	if depth > maxDepth {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return 0, errSyntax
		}
		end, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, errSyntax
		}
		start := skipSpace(b, i+1)
		if i, err = skipValue(b, start, depth); err != nil {
			return 0, err
		}
		if member != nil {
			member(key, b[start:i])
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == '}' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i++
	}
}

// skipArray returns the index past the array at b[i] == '[', calling elem (when not nil)
// with each raw element.
func skipArray(b []byte, i, depth int, elem func(val []byte)) (int, error) {
	if depth > maxDepth {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		start := skipSpace(b, i)
		var err error
		if i, err = skipValue(b, start, depth); err != nil {
			return 0, err
		}
		if elem != nil {
			elem(b[start:i])
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == ']' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i++
	}
}

// reply is the top level of a JSON-RPC response, as raw member values.
type reply struct {
	jsonrpc, id, result, error, method []byte
}

// parseReply splits a JSON-RPC message into its members, validating its syntax.
func parseReply(b []byte) (reply, error) {
	var r reply
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return r, errSyntax
	}
	end, err := skipObject(b, i, 1, func(key, val []byte) {
		switch string(key) {
		case "jsonrpc":
			r.jsonrpc = val
		case "id":
			r.id = val
		case "result":
			r.result = val
		case "error":
			r.error = val
		case "method":
			r.method = val
		}
	})
	if err != nil || skipSpace(b, end) != len(b) {
		return r, errSyntax
	}
	return r, nil
}

// member returns the raw value of key in the JSON object obj (nil if absent or not an
// object).
func member(obj []byte, key string) []byte {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	var v []byte
	_, _ = skipObject(obj, 0, 1, func(k, val []byte) {
		if v == nil && string(k) == key {
			v = val
		}
	})
	return v
}

// checkResponseAt checks a reply to request id: "jsonrpc":"2.0", the id echoed byte for byte,
// a result object (a JSON-RPC error is counted by its code), and, when text is not nil, a
// content array whose first block's text is the JSON string literal text. It returns "" or
// the error kind, and the offset of the id in body.
func checkResponseAt(body, id, text []byte) (string, int) {
	r, err := parseReply(body)
	if err != nil || string(r.jsonrpc) != `"2.0"` {
		return KindJSON, -1
	}
	return checkReply(&r, id, text), cap(body) - cap(r.id)
}

// checkReply checks the members of a parsed reply.
func checkReply(r *reply, id, text []byte) string {
	if !bytes.Equal(r.id, id) {
		return KindID
	}
	if r.error != nil {
		return KindRPCPrefix + rpcCode(r.error)
	}
	if len(r.result) == 0 || r.result[0] != '{' {
		return KindShape
	}
	if text == nil {
		return ""
	}
	content := member(r.result, "content")
	if len(content) == 0 || content[0] != '[' {
		return KindShape
	}
	var first []byte
	if _, err := skipArray(content, 0, 1, func(v []byte) {
		if first == nil {
			first = v
		}
	}); err != nil || first == nil {
		return KindShape
	}
	got := member(first, "text")
	if got == nil {
		return KindShape
	}
	if !bytes.Equal(got, text) {
		return KindEcho
	}
	return ""
}

// known remembers the last reply that passed the full check, split around its id: a reply
// identical to it but for the id (compared exactly) passes without another scan. Servers
// answer the echo call with the same bytes each time, so this keeps the check's cost far
// below the request's; any other reply gets the full check.
type known struct {
	head, tail []byte
}

// check checks body against id and text, through the remembered reply when it matches.
func (k *known) check(body, id, text []byte) string {
	if len(k.head) > 0 && len(body) == len(k.head)+len(id)+len(k.tail) &&
		bytes.HasPrefix(body, k.head) && bytes.HasSuffix(body, k.tail) &&
		bytes.Equal(body[len(k.head):len(k.head)+len(id)], id) {
		return ""
	}
	kind, off := checkResponseAt(body, id, text)
	if kind == "" && off >= 0 {
		k.head = append(k.head[:0], body[:off]...)
		k.tail = append(k.tail[:0], body[off+len(id):]...)
	}
	return kind
}

// rpcCode returns the code of a JSON-RPC error object, or "?".
func rpcCode(errObj []byte) string {
	c := member(errObj, "code")
	if _, err := strconv.ParseInt(string(c), 10, 64); err != nil {
		return "?"
	}
	return string(c)
}
