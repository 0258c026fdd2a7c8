package decode

// Decode decodes one JSON-RPC message from src into m, validating the whole message in one
// pass. On failure it returns an *Error with the JSON-RPC code the message earns; m still
// reports the Kind and, where it was readable and within bounds, the id to echo
// ([Message.IDEchoable]).
//
// m borrows src: src must not be modified while m is in use.
func (d *Decoder) Decode(m *Message, src []byte) error {
	m.Reset()
	m.src = src
	m.owned = false
	if len(src) > d.maxMessageBytes {
		return &Error{Code: CodeInvalidRequest, Message: msgTooLarge}
	}
	s := scanner{src: src, maxDepth: d.maxDepth, m: m}
	i := skipWS(src, 0)
	if i >= len(src) {
		return &Error{Code: CodeParseError, Message: msgEmpty, Offset: i}
	}
	top := src[i]
	switch top {
	case '{':
		i = s.members(i, 1, lvlEnvelope)
	case '[':
		i = s.array(i, 1, lvlOther)
	default:
		i, _ = s.value(i, 0, lvlOther)
	}
	if i >= 0 {
		if i = skipWS(src, i); i != len(src) {
			s.fail(msgTrailing, i)
		} else {
			switch top {
			case '{':
				s.envelope()
			case '[':
				m.kind = KindBatch
				s.err = &Error{Code: CodeInvalidRequest, Message: msgBatch}
			default:
				s.err = &Error{Code: CodeInvalidRequest, Message: msgNotObject}
			}
		}
	}
	if s.err == nil {
		return nil
	}
	return s.err
}

// envelope classifies a syntactically valid object and checks the JSON-RPC rules on it.
func (s *scanner) envelope() {
	m := s.m
	f := &m.fields
	hasID := f[fID].typ != TypeAbsent
	hasMethod := f[fMethod].typ != TypeAbsent
	isResponse := f[fResult].typ != TypeAbsent || f[fError].typ != TypeAbsent
	switch {
	case hasMethod && hasID:
		m.kind = KindRequest
	case hasMethod:
		m.kind = KindNotification
	case isResponse:
		m.kind = KindResponse
		return // never answered: nothing more to check
	default:
		m.kind = KindInvalid
	}
	if v := &f[fVersion]; v.typ != TypeString || string(m.text3(v)) != "2.0" {
		s.note(CodeInvalidRequest, msgVersion, int(v.start))
	}
	if hasID {
		if r := m.bounded(fID); r != boundOK {
			s.note(CodeInvalidRequest, idMessages[r], int(f[fID].start))
		} else {
			m.idOK = true
		}
	}
	switch {
	case !hasMethod:
		s.note(CodeInvalidRequest, msgMethodMissing, 0)
	case f[fMethod].typ != TypeString:
		s.note(CodeInvalidRequest, msgMethodType, int(f[fMethod].start))
	case isResponse:
		s.note(CodeInvalidRequest, msgAmbiguous, 0)
	}
	if p := f[fParams].typ; p != TypeAbsent && p != TypeObject {
		s.note(CodeInvalidParams, msgParamsType, int(f[fParams].start))
	}
	if f[fProgressToken].typ != TypeAbsent {
		if r := m.bounded(fProgressToken); r != boundOK {
			s.note(CodeInvalidParams, tokenMessages[r], int(f[fProgressToken].start))
		}
	}
}

// The rules of a bounded value (an id or a progressToken), as bounded reports them.
const (
	boundOK       = iota
	boundType     // neither a string nor an integer
	boundString   // a string longer than MaxIDBytes
	boundRange    // an integer outside the int64 range
	boundFraction // a number with a fraction or an exponent
)

var (
	idMessages    = [...]string{"", msgIDType, msgIDString, msgIDRange, msgIDFractional}
	tokenMessages = [...]string{"", msgTokenType, msgTokenString, msgTokenRange, msgTokenFractional}
)

// bounded applies the id rules (a string of at most MaxIDBytes, or an int64 integer) to the
// captured field f and returns the rule broken, or boundOK.
func (m *Message) bounded(f field) int {
	sp := &m.fields[f]
	switch sp.typ {
	case TypeString:
		if sp.tend-sp.tstart > MaxIDBytes {
			return boundString
		}
	case TypeInteger:
		if !fitsInt64(m.src[sp.start:sp.end]) {
			return boundRange
		}
	case TypeNumber:
		return boundFraction
	default:
		return boundType
	}
	return boundOK
}

// text3 returns the text of a captured string when it is three bytes long (enough to compare
// it with "2.0"), else nil.
func (m *Message) text3(sp *span) []byte {
	if sp.tend-sp.tstart != 3 {
		return nil
	}
	if sp.textInBuf {
		return m.text[sp.tstart:sp.tend]
	}
	return m.src[sp.tstart:sp.tend]
}

// fitsInt64 reports whether a JSON integer literal is within the int64 range.
func fitsInt64(lit []byte) bool {
	limit := "9223372036854775807"
	if len(lit) > 0 && lit[0] == '-' {
		lit = lit[1:]
		limit = "9223372036854775808"
	}
	if len(lit) != len(limit) {
		return len(lit) < len(limit)
	}
	return string(lit) <= limit
}

// captureEscaped records a string with escapes, its text unescaped into the text buffer.
func (s *scanner) captureEscaped(f field, start, end int) {
	t := len(s.m.text)
	s.m.text = appendUnescaped(s.m.text, s.src[start+1:end-1])
	s.m.fields[f].set(start, end, t, len(s.m.text), TypeString, true)
}

// set fills the span field by field: a composite literal would be built on the stack and
// copied with wide loads that cannot forward from its narrow stores, a stall on every capture.
func (sp *span) set(start, end, tstart, tend int, typ Type, textInBuf bool) {
	sp.start, sp.end, sp.tstart, sp.tend = uint32(start), uint32(end), uint32(tstart), uint32(tend)
	sp.typ, sp.textInBuf = typ, textInBuf
}
