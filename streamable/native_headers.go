package streamable

import (
	"bytes"

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

func indexOf(key []byte) int {
	switch string(key) { // fasthttp's normalized spellings: one comparison each
	case "Origin":
		return hOrigin
	case "Accept":
		return hAccept
	case "Mcp-Protocol-Version":
		return hVersion
	case "Mcp-Method":
		return hMethod
	case "Mcp-Name":
		return hName
	case "Transfer-Encoding":
		return hTransferEncoding
	}
	switch len(key) { // any other spelling
	case len("Origin"): // also "Accept"
		if bytes.EqualFold(key, []byte("Origin")) {
			return hOrigin
		}
		if bytes.EqualFold(key, []byte("Accept")) {
			return hAccept
		}
	case len(HeaderProtocolVersion):
		if bytes.EqualFold(key, []byte(HeaderProtocolVersion)) {
			return hVersion
		}
	case len(HeaderMethod):
		if bytes.EqualFold(key, []byte(HeaderMethod)) {
			return hMethod
		}
	case len(HeaderName):
		if bytes.EqualFold(key, []byte(HeaderName)) {
			return hName
		}
	case len("Transfer-Encoding"):
		if bytes.EqualFold(key, []byte("Transfer-Encoding")) {
			return hTransferEncoding
		}
	}
	return -1
}

// Values implements Headers.
func (s *headerSet) Values(name string) [][]byte {
	i := -1
	switch name { // the callers' constant names: one comparison each
	case "Origin":
		i = hOrigin
	case "Accept":
		i = hAccept
	case HeaderProtocolVersion:
		i = hVersion
	case HeaderMethod:
		i = hMethod
	case HeaderName:
		i = hName
	case "Transfer-Encoding":
		i = hTransferEncoding
	case "Content-Type":
		if s.ct[0] = s.h.ContentType(); len(s.ct[0]) > 0 {
			return s.ct[:]
		}
		return nil
	}
	if i >= 0 {
		switch c := s.n[i]; {
		case c == 0:
			return nil
		case c <= maxIndexed:
			return s.vals[i][:c]
		}
	}
	return s.h.PeekAll(name)
}
