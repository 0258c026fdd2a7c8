package fastmcp

// The result objects of a request, in its dialect. A 2026-07-28 result opens with its
// resultType and closes with the server's _meta (result.go). An initialize-era result has
// neither, nor the cache hints: it is just its members and the handler's own _meta, if any.
// Members are written each starting with a comma (see result.go), so an initialize-era
// result's opening brace is written over the first member's comma when it closes: nothing
// is copied.

// beginResult appends the start of a complete success response to r: the envelope, and
// for 2026-07-28 the resultType.
func (r *Request) beginResult(dst []byte) []byte {
	if !r.dialect.Legacy() {
		return beginResult(dst, r.ID(), resultComplete)
	}
	dst = append(dst, envelopeID...)
	dst = append(dst, r.ID()...)
	dst = append(dst, envelopeResult...)
	r.resultAt = len(dst)
	return dst
}

// endResult appends the end of a response begun with [Request.beginResult]: the _meta (for
// 2026-07-28 the server's joined by extra; otherwise extra alone), then it closes the
// result and the response.
func (r *Request) endResult(dst, extra []byte) []byte {
	if !r.dialect.Legacy() {
		return r.server.endResult(dst, extra)
	}
	return append(closeLegacyResult(dst, r.resultAt, extra), '}')
}

// openResult starts a result object built on its own (a list page), at the start of dst.
func (r *Request) openResult(dst []byte) []byte {
	if !r.dialect.Legacy() {
		return openResult(dst, resultComplete)
	}
	r.resultAt = len(dst)
	return dst
}

// closeResult ends a result object begun with [Request.openResult].
func (r *Request) closeResult(dst []byte) []byte {
	if !r.dialect.Legacy() {
		return r.server.closeResult(dst, nil)
	}
	return closeLegacyResult(dst, r.resultAt, nil)
}

// appendCacheHint appends ttlMs and cacheScope, which only 2026-07-28 results carry.
func (r *Request) appendCacheHint(dst []byte, h CacheHint) []byte {
	if r.dialect.Legacy() {
		return dst
	}
	return appendCacheHint(dst, h)
}

// closeLegacyResult closes an initialize-era result object whose members, each starting
// with a comma, run from at: the first comma becomes the opening brace, extra (a JSON object
// or nil) is the _meta, and the closing brace ends it.
func closeLegacyResult(dst []byte, at int, extra []byte) []byte {
	hasMeta := len(extra) >= 2 && string(extra) != "{}"
	if len(dst) == at { // no member
		dst = append(dst, '{')
		if hasMeta {
			dst = append(append(dst, `"_meta":`...), extra...)
		}
		return append(dst, '}')
	}
	dst[at] = '{'
	if hasMeta {
		dst = append(append(dst, `,"_meta":`...), extra...)
	}
	return append(dst, '}')
}

// appendEmptyResult appends a response whose result is exactly {} (ping, logging/setLevel,
// resources/subscribe and unsubscribe).
func appendEmptyResult(dst, id []byte) []byte {
	dst = append(dst, envelopeID...)
	dst = append(dst, id...)
	return append(dst, envelopeResult+"{}}"...)
}
