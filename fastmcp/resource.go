package fastmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Resource describes a resource with a fixed URI. Register it with [Server.AddResource].
type Resource struct {
	// URI is the resource's absolute URI (a scheme, a colon, something after it). It is the
	// resource's identity: resources/read looks it up byte for byte.
	URI string
	// Name is required: a short programmatic name, shown when there is no Title.
	Name        string
	Title       string
	Description string
	// MimeType is listed with the resource, and is the default MimeType of the contents the
	// handler returns.
	MimeType string
	// Size is the size of the raw contents in bytes, when known. If zero, it is not listed.
	// Negative values are invalid.
	Size        int64
	Annotations *Annotations
	Icons       []Icon
	// Meta is an optional _meta object listed with the resource.
	Meta json.RawMessage
	// Cache overrides Config.ResourcesCache for the reads of this resource. If nil, the
	// server's hint is used. A public scope is refused when the server has an Authorizer.
	Cache *CacheHint
	// Wrap lists component wrappers; the first runs outermost, after authorization.
	Wrap []Wrapper
}

// Annotations are hints for clients about a resource or a resource template; they are not
// enforced.
type Annotations struct {
	// Audience is who the data is for: RoleUser, RoleAssistant or both.
	Audience []Role `json:"audience,omitempty"`
	// Priority is from 0 (entirely optional) to 1 (effectively required); nil leaves it out.
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 timestamp, such as "2025-01-12T15:00:58Z".
	LastModified string `json:"lastModified,omitempty"`
}

// ResourceHandler reads a resource: uri is the URI requested. It returns the contents
// (at least one); an *Error to answer with a JSON-RPC error; an *InputRequired to ask the
// client for input (multi round-trip); or any other error, which the client sees as a generic
// -32603 "Resource read failed" (the error is logged, never sent).
//
// In each ResourceContents an empty URI means uri, and an empty MimeType means the
// component's MimeType.
type ResourceHandler func(ctx context.Context, r *Request, uri string) ([]ResourceContents, error)

// resourceEntry is a registered resource with its list JSON precomputed.
type resourceEntry struct {
	uri    string
	name   string
	mime   string
	listed []byte
	// listedNoIcons is listed without its icons, for 2025-06-18; nil when it has none.
	listedNoIcons []byte
	cache         *CacheHint
	wrap          []Wrapper
	read          ResourceHandler
}

func (e *resourceEntry) listedJSON(d Dialect) []byte { return listedIn(d, e.listed, e.listedNoIcons) }
func (e *resourceEntry) component() Component {
	return Component{Kind: "resource", Name: e.name, URI: e.uri}
}

// AddResource registers a resource and publishes resources/list_changed. Registration
// mistakes panic, as net/http's ServeMux does: a URI that is not absolute or is already
// registered, an empty name, a nil handler, a negative size, invalid annotations, a _meta that
// is not a JSON object, an invalid cache hint, an invalid wrapper.
func (s *Server) AddResource(res Resource, h ResourceHandler) {
	e, err := s.newResourceEntry(res, h)
	if err != nil {
		panic("fastmcp: resource " + res.URI + ": " + err.Error())
	}
	s.update(kindResource, func(c *catalog) {
		if _, dup := c.resources[e.uri]; dup {
			panic("fastmcp: resource " + res.URI + " is already registered")
		}
		c.resources[e.uri] = e
	})
}

// RemoveResources unregisters the resources with these URIs (unknown URIs are ignored) and
// publishes resources/list_changed when one was registered.
func (s *Server) RemoveResources(uris ...string) {
	if !anyKey(s.catalog.Load().resources, uris) {
		return
	}
	s.update(kindResource, func(c *catalog) {
		for _, u := range uris {
			delete(c.resources, u)
		}
	})
}

func anyKey[E any](m map[string]E, keys []string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func (s *Server) newResourceEntry(res Resource, h ResourceHandler) (*resourceEntry, error) {
	if h == nil {
		return nil, errors.New("nil handler")
	}
	if !isAbsoluteURI(res.URI) || !utf8.ValidString(res.URI) {
		return nil, errors.New("the URI must be absolute: a scheme, a colon and more")
	}
	if res.Size < 0 {
		return nil, fmt.Errorf("negative size %d", res.Size)
	}
	cache, err := s.componentCache(res.Cache)
	if err != nil {
		return nil, err
	}
	b := append([]byte(nil), `{"uri":`...)
	b = decode.AppendString(b, res.URI, false)
	b, noIcons, err := appendDescriptor(b, descriptor{
		name: res.Name, title: res.Title, description: res.Description, mimeType: res.MimeType,
		size: res.Size, annotations: res.Annotations, icons: res.Icons, meta: res.Meta, wrap: res.Wrap,
	})
	if err != nil {
		return nil, err
	}
	return &resourceEntry{
		uri: res.URI, name: res.Name, mime: res.MimeType, listed: b, listedNoIcons: noIcons,
		cache: cache, wrap: res.Wrap, read: h,
	}, nil
}

// componentCache validates a component's cache hint override.
func (s *Server) componentCache(h *CacheHint) (*CacheHint, error) {
	if h == nil {
		return nil, nil
	}
	r := *h
	switch {
	case r.TTL < 0:
		return nil, fmt.Errorf("negative cache TTL %v", r.TTL)
	case r.Scope == "":
		r.Scope = CachePrivate
	case r.Scope != CachePrivate && r.Scope != CachePublic:
		return nil, fmt.Errorf("cache scope %q is not %q or %q", r.Scope, CachePrivate, CachePublic)
	}
	if r.Scope == CachePublic && s.cfg.Authorizer != nil {
		return nil, errors.New("a public cache scope is refused on a server with an Authorizer")
	}
	return &r, nil
}

// descriptor is what resources and resource templates list besides their URI or template.
type descriptor struct {
	name, title, description, mimeType string
	size                               int64
	annotations                        *Annotations
	icons                              []Icon
	meta                               json.RawMessage
	wrap                               []Wrapper
}

// appendDescriptor validates d and appends its members and the closing brace; noIcons is
// the same object without icons (for 2025-06-18), nil when d has none.
func appendDescriptor(b []byte, d descriptor) (listed, noIcons []byte, err error) {
	if d.name == "" {
		return nil, nil, errors.New("a Name is required")
	}
	for _, w := range d.wrap {
		if err := w.validate(); err != nil {
			return nil, nil, err
		}
	}
	b = append(b, `,"name":`...)
	b = decode.AppendString(b, d.name, false)
	b = appendOptString(b, "title", d.title)
	b = appendOptString(b, "description", d.description)
	b = appendOptString(b, "mimeType", d.mimeType)
	if d.size > 0 {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, d.size, 10)
	}
	if a := d.annotations; a != nil {
		if err := a.validate(); err != nil {
			return nil, nil, err
		}
	}
	if b, err = appendOptJSON(b, "annotations", d.annotations, d.annotations != nil); err != nil {
		return nil, nil, err
	}
	return appendIconsAndMeta(b, d.icons, d.meta)
}

func (a *Annotations) validate() error {
	for _, r := range a.Audience {
		if r != RoleUser && r != RoleAssistant {
			return fmt.Errorf("annotations: audience %q is not %q or %q", r, RoleUser, RoleAssistant)
		}
	}
	if p := a.Priority; p != nil && (math.IsNaN(*p) || *p < 0 || *p > 1) {
		return fmt.Errorf("annotations: priority %v is outside [0, 1]", *p)
	}
	return nil
}

// appendMetaMember appends `,"_meta":<meta>` when meta is set; it must be a JSON object.
func appendMetaMember(b []byte, meta json.RawMessage) ([]byte, error) {
	m, err := metaObject(meta)
	if err != nil || m == nil {
		return b, err
	}
	return append(append(b, `,"_meta":`...), m...), nil
}

// metaObject returns a _meta value compacted (nil for nil), or an error when it is not a
// JSON object.
func metaObject(meta []byte) ([]byte, error) {
	if meta == nil {
		return nil, nil
	}
	return compactObject(meta)
}

func compactObject(meta []byte) ([]byte, error) {
	m, err := compactJSON(meta)
	if err != nil {
		return nil, fmt.Errorf("meta: %w", err)
	}
	if len(m) == 0 || m[0] != '{' {
		return nil, errors.New("meta: not a JSON object")
	}
	return m, nil
}

func (s *Server) listResources(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	r.cat.sorted()
	return listPage(ctx, s, r, dst, "resources", r.cat.resourceList, s.cfg.ResourcesCache)
}
