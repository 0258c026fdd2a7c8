package streamable

import (
	"github.com/valyala/fasthttp"
)

// headerSet indexes, in one pass over a request's headers, the ones admission reads on every
// request, so each lookup is an array read instead of a scan of the whole header. Others
// (Mcp-Param-*, rare repeats) fall back to fasthttp's lookup. A connection reuses one.
type headerSet struct {
	h    *fasthttp.RequestHeader
	vals [numIndexed][maxIndexed][]byte
	n    [numIndexed]int
	ct   [1][]byte // Content-Type, which fasthttp keeps apart
}

const maxIndexed = 2 // values kept per header; more fall back to PeekAll

const (
	hOrigin = iota
	hAccept
	hVersion
	hMethod
	hName
	hTransferEncoding
	numIndexed
)

func (s *headerSet) reset(h *fasthttp.RequestHeader) {
	s.h = h
	s.n = [numIndexed]int{}
	for k, v := range h.All() {
		i := indexOf(k)
		if i < 0 {
			continue
		}
		if s.n[i] < maxIndexed {
			s.vals[i][s.n[i]] = v
		}
		s.n[i]++
	}
}

// indexedNames are the indexed headers in fasthttp's normalized spelling.
var indexedNames = [numIndexed]string{
	hOrigin:           "Origin",
	hAccept:           "Accept",
	hVersion:          "Mcp-Protocol-Version",
	hMethod:           HeaderMethod,
	hName:             HeaderName,
	hTransferEncoding: "Transfer-Encoding",
}

// indexOf returns the index of an indexed header name, compared case-insensitively, or -1.
// It serves the header keys of a request and the callers' constant names alike.
func indexOf[T string | []byte](name T) int {
	switch string(name) { // fasthttp's spellings and the callers' constants: one comparison
	case "Origin":
		return hOrigin
	case "Accept":
		return hAccept
	case "Mcp-Protocol-Version", HeaderProtocolVersion:
		return hVersion
	case HeaderMethod:
		return hMethod
	case HeaderName:
		return hName
	case "Transfer-Encoding":
		return hTransferEncoding
	}
	for i, n := range indexedNames { // any other spelling
		if equalFoldASCII(n, name) {
			return i
		}
	}
	return -1
}

// equalFoldASCII reports whether name is want in any ASCII case (header names are ASCII).
func equalFoldASCII[T string | []byte](want string, name T) bool {
	if len(name) != len(want) {
		return false
	}
	for i := range len(want) {
		w, c := want[i], name[i]
		if w == c {
			continue
		}
		if l := w | 0x20; l < 'a' || l > 'z' || l != c|0x20 {
			return false
		}
	}
	return true
}

// Values implements Headers.
func (s *headerSet) Values(name string) [][]byte {
	if name == "Content-Type" {
		if s.ct[0] = s.h.ContentType(); len(s.ct[0]) > 0 {
			return s.ct[:]
		}
		return nil
	}
	if i := indexOf(name); i >= 0 {
		switch c := s.n[i]; {
		case c == 0:
			return nil
		case c <= maxIndexed:
			return s.vals[i][:c]
		}
	}
	return s.h.PeekAll(name)
}
