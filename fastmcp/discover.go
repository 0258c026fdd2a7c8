package fastmcp

import (
	"context"
	"strconv"

	"github.com/fastmcp-go/fastmcp/decode"
)

// discover serves server/discover from bytes precomputed once per catalog snapshot.
func (s *Server) discover(_ context.Context, r *Request, dst []byte) ([]byte, error) {
	return appendResult(dst, r.ID(), s.discoverResult(r.cat)), nil
}

// discoverResult returns the discover result object of a catalog snapshot, built once.
func (s *Server) discoverResult(c *catalog) []byte {
	c.discoverOnce.Do(func() {
		b := openResult(nil, resultComplete)
		b = append(b, `,"supportedVersions":["`+Version+`"],"capabilities":`...)
		b = s.appendExtensionCapabilities(appendCapabilities(b, c.kinds))
		b = appendOptString(b, "instructions", s.cfg.Instructions)
		b = appendCacheHint(b, s.cfg.DiscoverCache)
		c.discoverBytes = s.closeResult(b, nil)
	})
	return c.discoverBytes
}

// appendCapabilities writes the ServerCapabilities for the kinds of component registered.
func appendCapabilities(dst []byte, kinds componentKind) []byte {
	dst = append(dst, `{"logging":{}`...)
	if kinds&kindCompletion != 0 {
		dst = append(dst, `,"completions":{}`...)
	}
	if kinds&kindPrompt != 0 {
		dst = append(dst, `,"prompts":{"listChanged":true}`...)
	}
	if kinds&kindResource != 0 {
		dst = append(dst, `,"resources":{"subscribe":true,"listChanged":true}`...)
	}
	if kinds&kindTool != 0 {
		dst = append(dst, `,"tools":{"listChanged":true}`...)
	}
	return append(dst, '}')
}

func appendCacheHint(dst []byte, h CacheHint) []byte {
	dst = append(dst, `,"ttlMs":`...)
	dst = strconv.AppendInt(dst, h.TTL.Milliseconds(), 10)
	dst = append(dst, `,"cacheScope":"`...)
	dst = append(dst, h.Scope...)
	return append(dst, '"')
}

// serverInfoKey is the _meta member that names the server on every result.
const serverInfoKey = "io.modelcontextprotocol/serverInfo"

// appendServerMeta writes `"_meta":{"io.modelcontextprotocol/serverInfo":{...}}`.
func appendServerMeta(dst []byte, info Implementation) []byte {
	dst = append(dst, `"_meta":{"`+serverInfoKey+`":`...)
	dst = appendImplementation(dst, info)
	return append(dst, '}')
}

func appendImplementation(dst []byte, info Implementation) []byte {
	dst = append(dst, `{"name":`...)
	dst = decode.AppendString(dst, info.Name, false)
	dst = append(dst, `,"version":`...)
	dst = decode.AppendString(dst, info.Version, false)
	dst = appendOptString(dst, "title", info.Title)
	dst = appendOptString(dst, "description", info.Description)
	dst = appendOptString(dst, "websiteUrl", info.WebsiteURL)
	dst, _ = appendOptJSON(dst, "icons", info.Icons, len(info.Icons) > 0)
	return append(dst, '}')
}
