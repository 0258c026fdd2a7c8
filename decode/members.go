package decode

// members scans an object whose members the message captures: the envelope, params or
// params._meta (lvl). A captured key written plainly is matched in place (keys.go), any other
// key the general way (memberKey). A captured key seen twice is a duplicate at once; only the
// other keys go through the general duplicate check, since they can never equal a captured one.
func (s *scanner) members(i, depth int, lvl level) int {
	if depth > s.maxDepth {
		return s.fail(msgDepth, i)
	}
	src, m := s.src, s.m
	start := i
	i = skipWS(src, i+1)
	if i < len(src) && src[i] == '}' {
		return i + 1
	}
	mark := len(m.keys)
	var seen uint32
	dup := false
	child := lvl.child()
	for {
		f, n := fNone, 0
		if i+1 < len(src) {
			switch k := src[i:]; lvl {
			case lvlEnvelope:
				f, n = envelopeKey(k)
			case lvlParams:
				f, n = paramsKey(k)
			default:
				f, n = metaKey(k)
			}
		}
		if n > 0 {
			i = skipWS(src, i+n)
		} else if i, f = s.memberKey(i, lvl); i < 0 {
			return -1
		}
		switch {
		case f == fNone:
		case seen&(1<<f) != 0:
			dup = true
		default:
			seen |= 1 << f
		}
		vstart := i
		var typ Type
		vesc := false
		cl := child
		if lvl == lvlEnvelope && f == fParams {
			cl = lvlInParams // params that is not an object: its contents still count as params
		}
		switch {
		case i >= len(src):
			return s.fail(msgSyntax, i)
		case src[i] == '"':
			i, vesc = s.str(i)
			typ = TypeString
		case src[i] != '{':
			i, typ = s.value(i, depth, cl)
		case lvl == lvlEnvelope && f == fParams || lvl == lvlParams && f == fMeta:
			i = s.members(i, depth+1, lvl+1) // lvlParams follows lvlEnvelope, lvlMeta lvlParams
			typ = TypeObject
		default:
			i = s.object(i, depth+1, cl)
			typ = TypeObject
		}
		if i < 0 {
			return -1
		}
		switch {
		case f == fNone:
		case vesc:
			s.captureEscaped(f, vstart, i)
		default:
			m.fields[f].set(vstart, i, vstart+1, i-1, typ, false) // text bounds matter for strings only
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
	if dup || len(m.keys)-mark > 1 && s.duplicateKeys(mark) {
		s.note(lvl.dupCode(), lvl.dupMessage(), start)
	}
	m.keys = m.keys[:mark]
	return i
}

// memberKey scans a member key at src[i] and the colon after it, the general way: it returns the
// index of the value and the captured field the key names. A key that names none is recorded
// for the duplicate check.
func (s *scanner) memberKey(i int, lvl level) (int, field) {
	src, m := s.src, s.m
	if i >= len(src) || src[i] != '"' {
		return s.fail(msgSyntax, i), fNone
	}
	end, esc := s.str(i)
	if end < 0 {
		return -1, fNone
	}
	kstart, key := i+1, src[i+1:end-1]
	t := len(m.text)
	if esc {
		m.text = appendUnescaped(m.text, key)
		key = m.text[t:]
	}
	if i = s.colon(end); i < 0 {
		return -1, fNone
	}
	f := lvl.field(key)
	if f != fNone {
		return i, f
	}
	if lvl == lvlMeta {
		m.metaOther = true
	}
	if esc {
		s.pushText(t)
	} else {
		s.pushKey(kstart, end-1, false)
	}
	return i, fNone
}
