package stdio

import (
	"bytes"
	"strconv"
	"unsafe"

	"github.com/fastmcp-go/fastmcp/decode"
)

// requestID is a request id by value: an integer, or a string's unescaped text, so that ids
// the client considers equal ("a" and "\u0061", 0 and -0) are equal.
type requestID struct {
	num   int64
	str   string
	isStr bool
}

// parseID reads the id v, a string or an integer, unescaping a string into *buf (str is a
// view of it: valid while *buf is not changed). It reports false for other types and for
// integers out of the int64 range, which no request in flight can have.
func parseID(v decode.Value, buf *[]byte) (requestID, bool) {
	raw := v.Raw()
	switch v.Type() {
	case decode.TypeInteger:
		n, err := strconv.ParseInt(unsafe.String(unsafe.SliceData(raw), len(raw)), 10, 64)
		return requestID{num: n}, err == nil
	case decode.TypeString:
		b := (*buf)[:0]
		if bytes.IndexByte(raw, '\\') < 0 {
			b = append(b, raw[1:len(raw)-1]...)
		} else {
			b = decode.Unquote(b, raw)
		}
		*buf = b
		return requestID{str: unsafe.String(unsafe.SliceData(b), len(b)), isStr: true}, true
	}
	return requestID{}, false
}

// idTable holds the jobs in flight by id. Integer ids, the common case, are keyed by value
// in a map of their own, which is cheaper than hashing strings.
type idTable struct {
	ints map[int64]*job
	strs map[string]*job
}

func newIDTable() idTable {
	return idTable{ints: make(map[int64]*job), strs: make(map[string]*job)}
}

func (t *idTable) get(id requestID) *job {
	if id.isStr {
		return t.strs[id.str]
	}
	return t.ints[id.num]
}

// put maps id to j; a string id's text must stay unchanged until it is removed.
func (t *idTable) put(id requestID, j *job) {
	if id.isStr {
		t.strs[id.str] = j
	} else {
		t.ints[id.num] = j
	}
}

// remove unmaps id if it maps to j.
func (t *idTable) remove(id requestID, j *job) {
	if id.isStr {
		if t.strs[id.str] == j {
			delete(t.strs, id.str)
		}
	} else if t.ints[id.num] == j {
		delete(t.ints, id.num)
	}
}

// each calls fn for every job in the table.
// size is the number of requests and streams in the table.
func (t *idTable) size() int { return len(t.ints) + len(t.strs) }

func (t *idTable) each(fn func(*job)) {
	for _, j := range t.ints {
		fn(j)
	}
	for _, j := range t.strs {
		fn(j)
	}
}
