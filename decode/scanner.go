package decode

// scanner is one validating pass over a message. It walks the whole input once, in time
// linear in its length: strings are checked a word at a time (see str.go), numbers digit by digit,
// and duplicate keys with a bounded comparison per object (see dupkeys.go).
//
// The position travels as an argument and a result, so it stays in a register; a result of
// -1 means the scan failed and s.err holds why.
//
// Parse-class failures stop the scan at once (fail). Envelope and params failures are noted
// (note) and the scan goes on, so that a later syntax error still wins: one message always
// yields the same code whatever the order of its keys.
type scanner struct {
	src      []byte
	maxDepth int
	m        *Message
	err      *Error
}

// fail records a parse-class error at pos and returns -1, so callers can `return s.fail(...)`.
func (s *scanner) fail(msg string, pos int) int {
	s.err = &Error{Code: CodeParseError, Message: msg, Offset: pos}
	return -1
}

// note records an envelope or params error unless one of equal or higher precedence is held.
func (s *scanner) note(code Code, msg string, offset int) {
	if s.err != nil && s.err.Code.rank() >= code.rank() {
		return
	}
	s.err = &Error{Code: code, Message: msg, Offset: offset}
}

// wsMask has bit c set for each JSON whitespace byte c.
const wsMask = 1<<' ' | 1<<'\t' | 1<<'\n' | 1<<'\r'

// skipWS returns the index of the first byte at or after i that is not whitespace. Compact
// JSON has none, so the first test usually ends it.
func skipWS(src []byte, i int) int {
	for i < len(src) && src[i] <= ' ' && wsMask&(1<<src[i]) != 0 {
		i++
	}
	return i
}

// value scans any JSON value at src[i] (whitespace already skipped) and returns its end.
func (s *scanner) value(i, depth int, lvl level) (int, Type) {
	src := s.src
	if i >= len(src) {
		return s.fail(msgSyntax, i), TypeAbsent
	}
	switch c := src[i]; c {
	case '"':
		j, _ := s.str(i)
		return j, TypeString
	case '{':
		return s.object(i, depth+1, lvl), TypeObject
	case '[':
		return s.array(i, depth+1, lvl), TypeArray
	case 't':
		return s.literal(i, "true"), TypeBool
	case 'f':
		return s.literal(i, "false"), TypeBool
	case 'n':
		return s.literal(i, "null"), TypeNull
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return s.number(i)
		}
		return s.fail(msgSyntax, i), TypeAbsent
	}
}

func (s *scanner) literal(i int, lit string) int {
	if len(s.src)-i < len(lit) || string(s.src[i:i+len(lit)]) != lit {
		return s.fail(msgSyntax, i)
	}
	return i + len(lit)
}

func (s *scanner) array(i, depth int, lvl level) int {
	if depth > s.maxDepth {
		return s.fail(msgDepth, i)
	}
	src := s.src
	i = skipWS(src, i+1)
	if i < len(src) && src[i] == ']' {
		return i + 1
	}
	child := lvl.child()
	for {
		switch {
		case i >= len(src):
			return s.fail(msgSyntax, i)
		case src[i] == '"': // the most common elements, without the dispatch
			i, _ = s.str(i)
		case src[i] == '{':
			i = s.object(i, depth+1, child)
		default:
			i, _ = s.value(i, depth, child)
		}
		if i < 0 {
			return -1
		}
		i = skipWS(src, i)
		if i >= len(src) {
			return s.fail(msgSyntax, i)
		}
		switch src[i] {
		case ',':
			i = skipWS(src, i+1)
		case ']':
			return i + 1
		default:
			return s.fail(msgSyntax, i)
		}
	}
}

// object scans an object that captures nothing (outside the envelope, params and _meta):
// it only checks its syntax and its keys for duplicates.
func (s *scanner) object(i, depth int, lvl level) int {
	if depth > s.maxDepth {
		return s.fail(msgDepth, i)
	}
	src := s.src
	start := i
	i = skipWS(src, i+1)
	if i < len(src) && src[i] == '}' {
		return i + 1
	}
	mark := len(s.m.keys)
	child := lvl.child()
	// The first key is recorded only when a second one comes: a one-member object has
	// nothing to compare. n counts the members before the current one.
	n, first, firstEnd, firstEsc := 0, 0, 0, false
	for ; ; n++ {
		if i >= len(src) || src[i] != '"' {
			return s.fail(msgSyntax, i)
		}
		end, esc := s.str(i)
		if end < 0 {
			return -1
		}
		switch n {
		case 0:
			first, firstEnd, firstEsc = i+1, end-1, esc
		case 1:
			s.pushKey(first, firstEnd, firstEsc)
			fallthrough
		default:
			s.pushKey(i+1, end-1, esc)
		}
		if end < len(src) && src[end] == ':' {
			i = skipWS(src, end+1)
		} else if i = s.colon(end); i < 0 {
			return -1
		}
		switch {
		case i >= len(src):
			return s.fail(msgSyntax, i)
		case src[i] == '"': // the most common values, without the dispatch
			i, _ = s.str(i)
		case src[i] == '{':
			i = s.object(i, depth+1, child)
		default:
			i, _ = s.value(i, depth, child)
		}
		if i < 0 {
			return -1
		}
		if i = skipWS(src, i); i >= len(src) {
			return s.fail(msgSyntax, i)
		}
		if src[i] == ',' {
			i = skipWS(src, i+1)
			continue
		}
		if src[i] != '}' {
			return s.fail(msgSyntax, i)
		}
		i++
		break
	}
	if n > 0 && s.duplicateKeys(mark) { // two members or more
		s.note(lvl.dupCode(), lvl.dupMessage(), start)
	}
	s.m.keys = s.m.keys[:mark]
	return i
}

// colon skips the whitespace and the colon after a key ending at src[i-1], and the
// whitespace before the value; it returns the value's index.
func (s *scanner) colon(i int) int {
	src := s.src
	if i < len(src) && src[i] == ':' {
		return skipWS(src, i+1)
	}
	if i = skipWS(src, i); i >= len(src) || src[i] != ':' {
		return s.fail(msgSyntax, i)
	}
	return skipWS(src, i+1)
}

func (s *scanner) number(i int) (int, Type) {
	src := s.src
	if src[i] == '-' {
		i++
	}
	digits := i
	switch {
	case i >= len(src):
		return s.fail(msgSyntax, i), TypeAbsent
	case src[i] == '0':
		i++
	case src[i] >= '1' && src[i] <= '9':
		// Stop one digit past the limit: a 2,000,000-digit literal costs 65 steps.
		for i++; i < len(src) && src[i] >= '0' && src[i] <= '9' && i-digits <= MaxIntegerDigits; i++ {
		}
	default:
		return s.fail(msgSyntax, i), TypeAbsent
	}
	if i-digits > MaxIntegerDigits {
		return s.fail(msgDigits, digits), TypeAbsent
	}
	typ := TypeInteger
	if i < len(src) && src[i] == '.' {
		i++
		if i >= len(src) || src[i] < '0' || src[i] > '9' {
			return s.fail(msgSyntax, i), TypeAbsent
		}
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		typ = TypeNumber
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || src[i] < '0' || src[i] > '9' {
			return s.fail(msgSyntax, i), TypeAbsent
		}
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		typ = TypeNumber
	}
	return i, typ
}
