package fastmcp

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"

	"github.com/fastmcp-go/fastmcp/decode"
)

// listed is a component as the list methods see it.
type listed interface {
	// listedJSON is the component's object in its list, in dialect d.
	listedJSON(d Dialect) []byte
	component() Component
}

// listedIn picks a component's listed object for dialect d: 2025-06-18 has no icons.
func listedIn(d Dialect, listed, noIcons []byte) []byte {
	if d == Legacy20250618 && noIcons != nil {
		return noIcons
	}
	return listed
}

func (e *toolEntry) listedJSON(d Dialect) []byte { return listedIn(d, e.listed, e.listedNoIcons) }
func (e *toolEntry) component() Component {
	return Component{Kind: "tool", Name: e.name}
}

// listPage serves one page of a list method: the items the caller may see (authorization
// filters before paging), from the cursor's offset, under key.
func listPage[E listed](ctx context.Context, s *Server, r *Request, dst []byte, key string, items []E, hint CacheHint) ([]byte, error) {
	cursor := r.msg.Cursor()
	pages := r.cat.pages(r.dialect)
	if !cursor.Present() && s.cfg.Authorizer == nil {
		if cached, ok := pages.Load(key); ok {
			return appendResult(dst, r.ID(), cached.([]byte)), nil
		}
	}
	visible := items
	if s.cfg.Authorizer != nil {
		visible = make([]E, 0, len(items))
		for _, it := range items {
			refusal, fault := s.authorize(ctx, PhaseDiscovery, r.method, it.component())
			if fault != nil {
				return nil, errPolicyFault
			}
			if refusal == nil {
				visible = append(visible, it)
			}
		}
	}
	scope := cursorScope(ctx, r.method, r.dialect)
	offset := 0
	if cursor.Present() {
		var err *Error
		if offset, err = s.openCursor(cursor, r.cat.version, scope, len(visible)); err != nil {
			return nil, err
		}
	}
	end := min(offset+s.cfg.PageSize, len(visible))
	b := r.openResult(nil)
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":[`...)
	for i, it := range visible[offset:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it.listedJSON(r.dialect)...)
	}
	b = append(b, ']')
	if end < len(visible) {
		b = append(b, `,"nextCursor":"`...)
		b = s.appendCursor(b, r.cat.version, scope, end)
		b = append(b, '"')
	}
	b = r.appendCacheHint(b, hint)
	b = r.closeResult(b)
	if !cursor.Present() && s.cfg.Authorizer == nil {
		pages.Store(key, b)
	}
	return appendResult(dst, r.ID(), b), nil
}

// Cursors are opaque to clients: base64url of a version byte, the catalog version, the offset
// and a scope fingerprint (method, principal and, for the initialize-era dialects, the
// dialect). A cursor from another method, principal, dialect or catalog version is refused.
const cursorVersion = 1

func cursorScope(ctx context.Context, method string, d Dialect) uint64 {
	h := fnv.New64a()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(principalOf(ctx)))
	if d.Legacy() { // 2026-07-28 cursors keep the scope they always had
		h.Write([]byte{0, byte(d)})
	}
	return h.Sum64()
}

func (s *Server) appendCursor(dst []byte, version, scope uint64, offset int) []byte {
	var raw [21]byte
	raw[0] = cursorVersion
	binary.BigEndian.PutUint64(raw[1:], version)
	binary.BigEndian.PutUint32(raw[9:], uint32(offset))
	binary.BigEndian.PutUint64(raw[13:], scope)
	return base64.RawURLEncoding.AppendEncode(dst, raw[:])
}

func (s *Server) openCursor(c decode.Value, version, scope uint64, n int) (int, *Error) {
	if c.Type() != decode.TypeString || len(c.Text()) > MaxCursorBytes {
		return 0, errInvalidCursor
	}
	var raw [21]byte
	if base64.RawURLEncoding.DecodedLen(len(c.Text())) != len(raw) {
		return 0, errInvalidCursor
	}
	if _, err := base64.RawURLEncoding.Decode(raw[:], c.Text()); err != nil || raw[0] != cursorVersion {
		return 0, errInvalidCursor
	}
	if binary.BigEndian.Uint64(raw[13:]) != scope {
		return 0, errInvalidCursor
	}
	offset := int(binary.BigEndian.Uint32(raw[9:]))
	if binary.BigEndian.Uint64(raw[1:]) != version || offset <= 0 || offset >= n || offset%s.cfg.PageSize != 0 {
		return 0, errExpiredCursor
	}
	return offset, nil
}

func (s *Server) listTools(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	r.cat.sorted()
	tools := r.cat.toolList
	if r.dialect.Legacy() {
		tools = r.cat.legacyToolList
	}
	return listPage(ctx, s, r, dst, "tools", tools, s.cfg.ToolsCache)
}
