package fastmcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/uritemplate"
)

// ResourceTemplate describes a family of resources whose URIs match an RFC 6570 template.
// Register it with [Server.AddResourceTemplate].
type ResourceTemplate struct {
	// URITemplate is a level-1 RFC 6570 template such as "file:///{name}" or
	// "test://template/{id}/data": literal text and "{var}" expressions, at most 1,024 bytes
	// and 32 variables, starting with a literal URI scheme. A variable matches one or more
	// characters other than '/', '?' and '#', percent-decoded once.
	URITemplate string
	// Name is required: a short programmatic name, shown when there is no Title.
	Name        string
	Title       string
	Description string
	// MimeType is listed with the template, and is the default MimeType of the contents the
	// handler returns.
	MimeType    string
	Annotations *Annotations
	Icons       []Icon
	// Meta is an optional _meta object listed with the template.
	Meta json.RawMessage
	// Cache overrides Config.ResourcesCache for the reads this template serves. If nil, the
	// server's hint is used. A public scope is refused when the server has an Authorizer.
	Cache *CacheHint
	// Wrap lists component wrappers; the first runs outermost, after authorization. They wrap
	// Complete too.
	Wrap []Wrapper
	// Complete, if set, completes the template's variables (completion/complete with a
	// ref/resource reference); registering it advertises the completions capability.
	Complete CompletionHandler
}

// TemplateHandler reads a resource that matched a template: uri is the URI requested and vars
// its variables, percent-decoded (sanitize them before using them as paths, SQL or shell
// arguments). It returns like a [ResourceHandler], with the same defaults for the URI and
// MimeType of the contents.
type TemplateHandler func(ctx context.Context, r *Request, uri string, vars map[string]string) ([]ResourceContents, error)

// templateEntry is a registered resource template with its list JSON precomputed.
type templateEntry struct {
	pattern string
	name    string
	mime    string
	tmpl    *uritemplate.Template
	vars    []string // the variable names, which completion may ask about
	listed  []byte
	// listedNoIcons is listed without its icons, for 2025-06-18; nil when it has none.
	listedNoIcons []byte
	cache         *CacheHint
	wrap          []Wrapper
	read          TemplateHandler
	complete      CompletionHandler
}

func (e *templateEntry) listedJSON(d Dialect) []byte { return listedIn(d, e.listed, e.listedNoIcons) }
func (e *templateEntry) component() Component {
	return Component{Kind: "resource_template", Name: e.name, URI: e.pattern}
}

// AddResourceTemplate registers a resource template and publishes resources/list_changed.
// Reads try the exact resource URIs first, then the templates. Registration mistakes panic:
// an invalid template (unsupported syntax, too long, too many variables, no variable, no
// literal scheme), a template already registered, and the mistakes [Server.AddResource]
// refuses.
func (s *Server) AddResourceTemplate(t ResourceTemplate, h TemplateHandler) {
	e, err := s.newTemplateEntry(t, h)
	if err != nil {
		panic("fastmcp: resource template " + t.URITemplate + ": " + err.Error())
	}
	kind := kindResource
	if e.complete != nil {
		kind |= kindCompletion
	}
	s.update(kind, func(c *catalog) {
		if _, dup := c.templates[e.pattern]; dup {
			panic("fastmcp: resource template " + t.URITemplate + " is already registered")
		}
		c.templates[e.pattern] = e
	})
}

// RemoveResourceTemplates unregisters the templates with these URI templates (unknown ones
// are ignored) and publishes resources/list_changed when one was registered.
func (s *Server) RemoveResourceTemplates(uriTemplates ...string) {
	if !anyKey(s.catalog.Load().templates, uriTemplates) {
		return
	}
	s.update(kindResource, func(c *catalog) {
		for _, u := range uriTemplates {
			delete(c.templates, u)
		}
	})
}

func (s *Server) newTemplateEntry(t ResourceTemplate, h TemplateHandler) (*templateEntry, error) {
	if h == nil {
		return nil, errors.New("nil handler")
	}
	tmpl, err := uritemplate.Parse(t.URITemplate)
	if err != nil {
		return nil, err
	}
	if tmpl.NumVars() == 0 {
		return nil, errors.New("the template has no variable: register a Resource instead")
	}
	scheme, _, _ := strings.Cut(t.URITemplate, "{")
	if !isAbsoluteURI(scheme + "x") {
		return nil, errors.New("the template must start with a literal URI scheme and a colon")
	}
	cache, err := s.componentCache(t.Cache)
	if err != nil {
		return nil, err
	}
	b := append([]byte(nil), `{"uriTemplate":`...)
	b = decode.AppendString(b, t.URITemplate, false)
	b, noIcons, err := appendDescriptor(b, descriptor{
		name: t.Name, title: t.Title, description: t.Description, mimeType: t.MimeType,
		annotations: t.Annotations, icons: t.Icons, meta: t.Meta, wrap: t.Wrap,
	})
	if err != nil {
		return nil, err
	}
	return &templateEntry{
		pattern: t.URITemplate, name: t.Name, mime: t.MimeType, tmpl: tmpl, vars: tmpl.Variables(), listed: b, listedNoIcons: noIcons,
		cache: cache, wrap: t.Wrap, read: h, complete: t.Complete,
	}, nil
}

func (s *Server) listTemplates(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	r.cat.sorted()
	return listPage(ctx, s, r, dst, "resourceTemplates", r.cat.templateList, s.cfg.ResourcesCache)
}
