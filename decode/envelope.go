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
	if v := f[fVersion]; v.typ != TypeString || string(m.value(fVersion).text) != "2.0" {
		s.note(CodeInvalidRequest, msgVersion, int(v.start))
	}
	if hasID {
		s.checkID()
	}
	switch {
	case !hasMethod:
		s.note(CodeInvalidRequest, msgMethodMissing, 0)
	case f[fMethod].typ != TypeString:
		s.note(CodeInvalidRequest, msgMethodType, int(f[fMethod].start))
	case isResponse:
		s.note(CodeInvalidRequest, msgAmbiguous, 0)
	}
	if p := f[fParams]; p.typ != TypeAbsent && p.typ != TypeObject {
		s.note(CodeInvalidParams, msgParamsType, int(p.start))
	}
	if t := f[fProgressToken]; t.typ != TypeAbsent {
		if msg := checkBounded(m.value(fProgressToken), msgTokenType, msgTokenString, msgTokenRange, msgTokenFractional); msg != "" {
			s.note(CodeInvalidParams, msg, int(t.start))
		}
	}
}

func (s *scanner) checkID() {
	id := s.m.fields[fID]
	msg := checkBounded(s.m.value(fID), msgIDType, msgIDString, msgIDRange, msgIDFractional)
	if msg != "" {
		s.note(CodeInvalidRequest, msg, int(id.start))
		return
	}
	s.m.idOK = true
}

// checkBounded applies the id rules (a string of at most MaxIDBytes, or an int64 integer) and
// returns the message of the rule broken, or "".
func checkBounded(v Value, typeMsg, stringMsg, rangeMsg, fracMsg string) string {
	switch v.typ {
	case TypeString:
		if len(v.text) > MaxIDBytes {
			return stringMsg
		}
	case TypeInteger:
		if !fitsInt64(v.raw) {
			return rangeMsg
		}
	case TypeNumber:
		return fracMsg
	default:
		return typeMsg
	}
	return ""
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

// capture records the value at src[start:end] as field f; esc tells whether a string value
// has escapes.
func (s *scanner) capture(f field, start, end int, typ Type, esc bool) {
	sp := &s.m.fields[f]
	*sp = span{start: uint32(start), end: uint32(end), typ: typ}
	if typ != TypeString {
		return
	}
	if !esc {
		sp.tstart, sp.tend = uint32(start+1), uint32(end-1)
		return
	}
	t := len(s.m.text)
	s.m.text = appendUnescaped(s.m.text, s.src[start+1:end-1])
	sp.tstart, sp.tend, sp.textInBuf = uint32(t), uint32(len(s.m.text)), true
}
