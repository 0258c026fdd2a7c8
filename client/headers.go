package client

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/fastmcp-go/fastmcp/decode"
)

// sentinelPrefix and sentinelSuffix wrap a header value that cannot travel as is
// (2026-07-28 §Custom Headers): non-ASCII, controls, edge whitespace, or one that looks
// like the wrapper itself.
const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// headerValue returns v as a header value, base64-wrapped when it is not plain visible ASCII.
// The empty string travels as an empty header.
func headerValue(v string) string {
	if v == "" {
		return ""
	}
	plain := v[0] != ' ' && v[0] != '\t' && v[len(v)-1] != ' ' && v[len(v)-1] != '\t' &&
		!strings.HasPrefix(v, sentinelPrefix)
	for i := 0; plain && i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c >= 0x7f {
			plain = false
		}
	}
	if plain {
		return v
	}
	return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(v)) + sentinelSuffix
}

// headerArg is one tool argument mirrored as Mcp-Param-{header}.
type headerArg struct {
	arg, header string
}

// toolHeaders caches, per tool name, the x-mcp-header arguments seen in the last tools/list.
type toolHeaders struct {
	mu    sync.RWMutex
	tools map[string][]headerArg
}

func (t *toolHeaders) get(name string) []headerArg {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.tools[name]
}

func (t *toolHeaders) set(m map[string][]headerArg) {
	t.mu.Lock()
	t.tools = m
	t.mu.Unlock()
}

// merge records one tool's annotations (none: forgets any it had), keeping the others: the
// page and iterator forms of tools/list see a page at a time.
func (t *toolHeaders) merge(name string, hs []headerArg) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(hs) == 0 {
		delete(t.tools, name)
		return
	}
	if t.tools == nil {
		t.tools = map[string][]headerArg{}
	}
	t.tools[name] = hs
}

// paramHeaders builds the Mcp-Param-* headers for args (a JSON object) from the tool's
// annotations; null or absent arguments send no header.
func paramHeaders(dst []paramHeader, hs []headerArg, args []byte) []paramHeader {
	for _, h := range hs {
		v := decode.Lookup(args, h.arg)
		var s string
		switch v.Type() {
		case decode.TypeString:
			if t := v.Text(); t != nil || len(v.Raw()) == 2 {
				s = string(t)
			} else {
				s = string(decode.Unquote(nil, v.Raw()))
			}
		case decode.TypeInteger, decode.TypeBool, decode.TypeNumber:
			s = string(v.Raw())
		default:
			continue
		}
		dst = append(dst, paramHeader{name: h.header, value: headerValue(s)})
	}
	return dst
}

// schemaHeaders reads a tool input schema's x-mcp-header annotations, or why they are invalid
// (the tool is then dropped). Only root properties may carry one: annotations nested deeper
// are invalid too.
func schemaHeaders(schema json.RawMessage) ([]headerArg, error) {
	if len(schema) == 0 || !strings.Contains(string(schema), "x-mcp-header") {
		return nil, nil
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	var out []headerArg
	seen := map[string]bool{}
	for arg, raw := range s.Properties {
		var p struct {
			Type   json.RawMessage `json:"type"`
			Header *string         `json:"x-mcp-header"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("property %q: %v", arg, err)
		}
		if p.Header == nil {
			if strings.Contains(string(raw), `"x-mcp-header"`) {
				return nil, fmt.Errorf("property %q: x-mcp-header below the root properties", arg)
			}
			continue
		}
		h := *p.Header
		if !isToken(h) {
			return nil, fmt.Errorf("property %q: x-mcp-header %q is not an HTTP token", arg, h)
		}
		if seen[strings.ToLower(h)] {
			return nil, fmt.Errorf("property %q: x-mcp-header %q is not unique", arg, h)
		}
		seen[strings.ToLower(h)] = true
		var typ string
		if json.Unmarshal(p.Type, &typ) != nil || (typ != "string" && typ != "integer" && typ != "boolean") {
			return nil, fmt.Errorf("property %q: x-mcp-header on type %s (string, integer or boolean only)", arg, p.Type)
		}
		out = append(out, headerArg{arg: arg, header: h})
	}
	return out, nil
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alnum && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}
