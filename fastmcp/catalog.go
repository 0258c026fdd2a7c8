package fastmcp

import (
	"maps"
	"slices"
	"sync"
)

// componentKind names a kind of component, for capabilities and list_changed events.
type componentKind uint8

const (
	kindTool componentKind = 1 << iota
	kindPrompt
	kindResource
	kindCompletion
)

// catalog is an immutable snapshot of the registered components. Writers copy it, change
// the copy and publish it atomically, so a request sees one consistent catalog from start to
// end.
type catalog struct {
	version   uint64
	kinds     componentKind // kinds ever registered: the capabilities advertised
	tools     map[string]*toolEntry
	prompts   map[string]*promptEntry
	resources map[string]*resourceEntry
	templates map[string]*templateEntry

	// Sorted views and precomputed bytes, built once per snapshot on first use.
	sortOnce      sync.Once
	toolList      []*toolEntry
	promptList    []*promptEntry
	resourceList  []*resourceEntry
	templateList  []*templateEntry
	publicPages   sync.Map // pageKey -> []byte: first pages of the lists, without authorization
	discoverBytes []byte

	// legacyToolList is toolList without the tools the initialize-era revisions cannot
	// express; legacyPages are publicPages for 2025-11-25 and 2025-06-18.
	legacyToolList []*toolEntry
	legacyPages    [2]sync.Map
	discoverOnce   sync.Once
}

func newCatalog(version uint64) *catalog {
	return &catalog{
		version:   version,
		tools:     map[string]*toolEntry{},
		prompts:   map[string]*promptEntry{},
		resources: map[string]*resourceEntry{},
		templates: map[string]*templateEntry{},
	}
}

func (c *catalog) sorted() {
	c.sortOnce.Do(func() {
		c.toolList = sortedValues(c.tools, func(e *toolEntry) string { return e.name })
		c.promptList = sortedValues(c.prompts, func(e *promptEntry) string { return e.name })
		c.resourceList = sortedValues(c.resources, func(e *resourceEntry) string { return e.uri })
		c.templateList = sortedValues(c.templates, func(e *templateEntry) string { return e.pattern })
		c.legacyToolList = c.toolList
		for i, e := range c.toolList {
			if !e.legacy { // copy on the first hidden tool; most catalogs have none
				c.legacyToolList = slices.Clone(c.toolList[:i])
				for _, e := range c.toolList[i:] {
					if e.legacy {
						c.legacyToolList = append(c.legacyToolList, e)
					}
				}
				break
			}
		}
	})
}

// pages returns the cache of first list pages of dialect d.
func (c *catalog) pages(d Dialect) *sync.Map {
	if d.Legacy() {
		return &c.legacyPages[d-Legacy20251125]
	}
	return &c.publicPages
}

func sortedValues[E any](m map[string]E, key func(E) string) []E {
	out := slices.Collect(maps.Values(m))
	slices.SortFunc(out, func(a, b E) int {
		ka, kb := key(a), key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	return out
}

// update applies change to a copy of the catalog and publishes it, then announces the change
// to listen streams. change may panic (a registration mistake); the catalog is then left as
// it was.
func (s *Server) update(kind componentKind, change func(*catalog)) {
	s.mu.Lock()
	old := s.catalog.Load()
	next := newCatalog(old.version + 1)
	next.kinds = old.kinds | kind
	next.tools = maps.Clone(old.tools)
	next.prompts = maps.Clone(old.prompts)
	next.resources = maps.Clone(old.resources)
	next.templates = maps.Clone(old.templates)
	func() {
		defer func() {
			if p := recover(); p != nil {
				s.mu.Unlock()
				panic(p)
			}
		}()
		change(next)
	}()
	s.catalog.Store(next)
	s.mu.Unlock()

	switch kind &^ kindCompletion {
	case kindTool:
		s.bus.Publish(Event{Kind: ToolsListChanged})
	case kindPrompt:
		s.bus.Publish(Event{Kind: PromptsListChanged})
	case kindResource:
		s.bus.Publish(Event{Kind: ResourcesListChanged})
	}
}
