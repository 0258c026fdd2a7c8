package fastmcp

import (
	"context"
	"errors"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/uritemplate"
)

var (
	errReadURI          = &Error{Code: CodeInvalidParams, Message: "Invalid params: uri must be an absolute URI"}
	errMultipleRoutes   = &Error{Code: CodeInternalError, Message: "Multiple resource routes matched the requested URI"}
	errResourceReadFail = &Error{Code: CodeInternalError, Message: "Resource read failed"}
)

// emptyArguments are the arguments a resources/read binds its requestState to.
var emptyArguments = []byte("{}")

// resourceNotFound is -32602 "Resource not found" with data {"uri":...} (SEP-2164); in the
// initialize-era dialects the code is -32002.
func resourceNotFound(d Dialect, uri string) *Error {
	data := append([]byte(`{"uri":`), decode.AppendString(nil, uri, false)...)
	code := CodeInvalidParams
	if d.Legacy() {
		code = CodeResourceNotFound
	}
	return &Error{Code: code, Message: "Resource not found", Data: append(data, '}')}
}

// readTarget is what a resources/read URI resolved to: a resource, or a template and its
// variables.
type readTarget struct {
	res  *resourceEntry
	tmpl *templateEntry
	vars []uritemplate.Var
}

func (t *readTarget) component(uri string) Component {
	if t.res != nil {
		return t.res.component()
	}
	c := t.tmpl.component()
	c.RequestedURI = uri
	return c
}

// resolveURI finds what serves uri: the resource registered with exactly that URI, else the
// one template that matches it (in sorted order; a second match is a server bug).
func (s *Server) resolveURI(cat *catalog, d Dialect, uri string) (readTarget, *Error) {
	if e := cat.resources[uri]; e != nil {
		return readTarget{res: e}, nil
	}
	cat.sorted()
	var t readTarget
	var scratch [8]uritemplate.Var
	for _, e := range cat.templateList {
		if t.tmpl == nil {
			if vars, ok := e.tmpl.MatchAppend(nil, uri); ok {
				t = readTarget{tmpl: e, vars: vars}
			}
			continue
		}
		if _, ok := e.tmpl.MatchAppend(scratch[:0], uri); ok {
			s.cfg.Logger.Error("fastmcp: several resource templates match one URI", "uri", uri,
				"template", t.tmpl.pattern, "also", e.pattern)
			return readTarget{}, errMultipleRoutes
		}
	}
	if t.tmpl == nil {
		return readTarget{}, resourceNotFound(d, uri)
	}
	return t, nil
}

// readResource serves resources/read: the URI's shape, routing, authorization, the multi
// round-trip state, wrappers and handler, and the result's shape.
func (s *Server) readResource(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	u := r.msg.URI()
	if u.Type() != decode.TypeString || !isAbsoluteURI(u.Text()) {
		return nil, errReadURI
	}
	uri := u.String()
	target, rerr := s.resolveURI(r.cat, r.dialect, uri)
	if rerr != nil {
		return nil, rerr
	}
	c := target.component(uri)
	if err := s.authorizeInvocation(ctx, r.method, c, func() *Error { return resourceNotFound(r.dialect, uri) }); err != nil {
		return nil, err
	}
	if err := s.openState(ctx, r, uri, emptyArguments); err != nil {
		return nil, err
	}
	contents, err := run(ctx, r, &opRead, &invocation{c, uri, target.wrappers()}, invokeRead, readCall{target, uri})
	if err != nil {
		var ir *InputRequired
		if errors.As(err, &ir) {
			return s.appendInputRequired(ctx, dst, r, uri, emptyArguments, ir)
		}
		return nil, s.handlerError(ctx, err, errResourceReadFail, "fastmcp: resource read failed", "uri", uri)
	}
	return s.appendReadResult(dst, r, &target, uri, contents)
}

// readCall is the runner's input for resources/read.
type readCall struct {
	t   readTarget
	uri string
}

func invokeRead(ctx context.Context, r *Request, c readCall) ([]ResourceContents, error) {
	if c.t.res != nil {
		return c.t.res.read(ctx, r, c.uri)
	}
	vars := make(map[string]string, len(c.t.vars))
	for _, v := range c.t.vars {
		vars[v.Name] = v.Value
	}
	return c.t.tmpl.read(ctx, r, c.uri, vars)
}

func (t *readTarget) wrappers() []Wrapper {
	if t.res != nil {
		return t.res.wrap
	}
	return t.tmpl.wrap
}

// handlerError maps the error of a resource, prompt or completion handler to what the client
// sees: a wrapper's refusal is -32603 with its message, an *Error is sent as it is, the
// request's own cancellation is passed on (nothing is sent), and anything else is logged and
// answered with generic.
func (s *Server) handlerError(ctx context.Context, err error, generic *Error, logMsg string, logArgs ...any) error {
	var we *wrapperError
	if errors.As(err, &we) {
		return &Error{Code: CodeInternalError, Message: we.msg}
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if ctx.Err() != nil && isCancellation(err) {
		return err
	}
	s.cfg.Logger.Error(logMsg, append(logArgs, "err", err)...)
	return generic
}

// appendReadResult writes a complete resources/read result. Empty contents are a server bug:
// SEP-2164 forbids answering a read with nothing.
func (s *Server) appendReadResult(dst []byte, r *Request, t *readTarget, uri string, contents []ResourceContents) ([]byte, error) {
	if len(contents) == 0 {
		s.cfg.Logger.Error("fastmcp: resource handler returned no contents", "uri", uri)
		return nil, errInvalidResult
	}
	mime, hint := t.defaults(s)
	dst = r.beginResult(dst)
	dst = append(dst, `,"contents":[`...)
	for i := range contents {
		rc := contents[i] // a copy: the defaults are filled without touching the handler's slice
		if rc.URI == "" {
			rc.URI = uri
		}
		if rc.MimeType == "" {
			rc.MimeType = mime
		}
		m, err := metaObject(rc.Meta)
		if err != nil {
			s.cfg.Logger.Error("fastmcp: resource contents with an invalid _meta", "uri", uri, "err", err)
			return nil, errInvalidResult
		}
		rc.Meta = m
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendResourceContents(dst, &rc)
	}
	dst = append(dst, ']')
	dst = r.appendCacheHint(dst, hint)
	return r.endResult(dst, nil), nil
}

// defaults returns the MimeType the contents default to and the cache hint of the read.
func (t *readTarget) defaults(s *Server) (string, CacheHint) {
	mime, cache := "", (*CacheHint)(nil)
	if t.res != nil {
		mime, cache = t.res.mime, t.res.cache
	} else {
		mime, cache = t.tmpl.mime, t.tmpl.cache
	}
	if cache != nil {
		return mime, *cache
	}
	return mime, s.cfg.ResourcesCache
}

// resourceComponent returns what an authorization policy is asked about for uri outside a read
// (a subscription to it): the resource registered with that URI; else the first template, in
// sorted order, that matches it, with RequestedURI set; else a resource component that names
// only the URI.
func resourceComponent(cat *catalog, uri string) Component {
	if e := cat.resources[uri]; e != nil {
		return e.component()
	}
	cat.sorted()
	var scratch [8]uritemplate.Var
	for _, e := range cat.templateList {
		if _, ok := e.tmpl.MatchAppend(scratch[:0], uri); ok {
			c := e.component()
			c.RequestedURI = uri
			return c
		}
	}
	return Component{Kind: "resource", URI: uri, RequestedURI: uri}
}
