package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// registry is what one backend registered in the Server, by the Gateway's name (or URI),
// with the listing it came from: a refresh re-registers only what changed.
type registry struct {
	tools, prompts, resources, templates map[string][]byte
	entries                              atomic.Int64
}

func newRegistry() registry {
	return registry{tools: map[string][]byte{}, prompts: map[string][]byte{}, resources: map[string][]byte{}, templates: map[string][]byte{}}
}

func (r *registry) size() int {
	return len(r.tools) + len(r.prompts) + len(r.resources) + len(r.templates)
}

// refresh reads the backend's catalog and brings the Server's entries for it up to date.
func (b *backend) refresh(ctx context.Context, c *client.Client) (capabilities, changes, error) {
	caps, cat, err := loadCatalog(ctx, c, b.g.cfg.MaxCatalogEntries)
	if err != nil {
		return caps, changes{}, err
	}
	srv := b.g.srv
	var ch changes
	ch.tools = syncKind(b, b.reg.tools, cat.tools, func(t client.Tool) string { return b.names.Name(t.Name) },
		srv.RemoveTools, func(name string, t client.Tool) { srv.AddRawTool(b.tool(name, t), b.callTool(t.Name)) })
	ch.prompts = syncKind(b, b.reg.prompts, cat.prompts, func(p client.Prompt) string { return b.names.Name(p.Name) },
		srv.RemovePrompts, func(name string, p client.Prompt) { srv.AddPrompt(b.prompt(name, p, caps), b.getPrompt(p.Name)) })
	ch.resources = syncKind(b, b.reg.resources, cat.resources, func(r client.Resource) string { return b.names.URI(r.URI) },
		srv.RemoveResources, func(uri string, r client.Resource) { srv.AddResource(b.resource(uri, r), b.readResource(r.URI)) })
	ch.resources = syncKind(b, b.reg.templates, cat.templates, func(t client.ResourceTemplate) string { return b.names.URI(t.URITemplate) },
		srv.RemoveResourceTemplates, func(uri string, t client.ResourceTemplate) {
			srv.AddResourceTemplate(b.template(uri, t, caps), b.readTemplate())
		}) || ch.resources
	b.reg.entries.Store(int64(b.reg.size()))
	b.noteSubscribable() // subscribe.go
	b.noteTasks(caps)    // tasks.go
	return caps, ch, nil
}

// changes says which of a backend's lists a refresh changed: the Server announced those.
type changes struct{ tools, prompts, resources bool }

// announce publishes the list_changed of a backend's notification method that the refresh
// after it did not change: the backend said its list changed, so the callers hear it (a
// transparent gateway forwards what its backend announces), even when what the gateway
// serves of it is the same.
func (b *backend) announce(method string, ch changes) {
	var kind fastmcp.EventKind
	switch {
	case method == "notifications/tools/list_changed" && !ch.tools:
		kind = fastmcp.ToolsListChanged
	case method == "notifications/prompts/list_changed" && !ch.prompts:
		kind = fastmcp.PromptsListChanged
	case method == "notifications/resources/list_changed" && !ch.resources:
		kind = fastmcp.ResourcesListChanged
	default:
		return
	}
	b.g.srv.Publish(fastmcp.Event{Kind: kind})
}

// syncKind replaces the registered entries of one kind (have) with list: entries gone or
// changed are removed, new or changed ones added. An entry the Server refuses (a name or
// schema it cannot serve) is logged and left out; the others are served.
func syncKind[T any](b *backend, have map[string][]byte, list []T, key func(T) string, remove func(...string), add func(string, T)) (changed bool) {
	want := make(map[string]T, len(list))
	listed := make(map[string][]byte, len(list))
	for _, e := range list {
		k := key(e)
		raw, _ := json.Marshal(e)
		want[k], listed[k] = e, raw
	}
	var gone []string
	for k, raw := range have {
		if nr, ok := listed[k]; !ok || !bytes.Equal(nr, raw) {
			gone = append(gone, k)
			delete(have, k)
		}
	}
	if len(gone) > 0 {
		remove(gone...)
		changed = true
	}
	for k, e := range want {
		if _, ok := have[k]; ok {
			continue
		}
		if err := catchPanic(func() { add(k, e) }); err != nil {
			b.log.Warn("gateway: catalog entry refused", "entry", k, "err", err)
			continue
		}
		have[k] = listed[k]
		changed = true
	}
	return changed
}

// catchPanic runs f, turning the Server's registration panics into an error.
func catchPanic(f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%v", v)
		}
	}()
	f()
	return nil
}

func (b *backend) tool(name string, t client.Tool) fastmcp.Tool {
	ft := fastmcp.Tool{Name: name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
	if len(ft.InputSchema) == 0 {
		ft.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	if len(t.Annotations) > 0 {
		var a fastmcp.ToolAnnotations
		if json.Unmarshal(t.Annotations, &a) == nil {
			ft.Annotations = &a
		}
	}
	return ft
}

func (b *backend) prompt(name string, p client.Prompt, caps capabilities) fastmcp.Prompt {
	fp := fastmcp.Prompt{Name: name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		fp.Arguments = append(fp.Arguments, fastmcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	if caps.Completions != nil {
		fp.Complete = b.complete(client.CompletionRef{Type: "ref/prompt", Name: p.Name})
	}
	return fp
}

func (b *backend) resource(uri string, r client.Resource) fastmcp.Resource {
	return fastmcp.Resource{URI: uri, Name: r.Name, Title: r.Title, Description: r.Description, MimeType: r.MimeType}
}

func (b *backend) template(uri string, t client.ResourceTemplate, caps capabilities) fastmcp.ResourceTemplate {
	ft := fastmcp.ResourceTemplate{URITemplate: uri, Name: t.Name, Title: t.Title, Description: t.Description, MimeType: t.MimeType}
	if caps.Completions != nil {
		ft.Complete = b.complete(client.CompletionRef{Type: "ref/resource", URI: t.URITemplate})
	}
	return ft
}
