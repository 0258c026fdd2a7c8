package gateway

import (
	"slices"
	"strings"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Resource subscriptions are routed by subscribing at the backend, on the Gateway's own
// listen stream to it, to every resource the backend lists (at most
// fastmcp.MaxResourceSubscriptions, in URI order) when it declares resources.subscribe: its
// notifications/resources/updated then becomes the Server's for the Gateway's URI, which
// reaches exactly the callers subscribed to it (their listen streams' resourceSubscriptions,
// or an initialize-era session's resources/subscribe). The backend learns nothing of who
// subscribed; it sends what changed, and the Server's hub keeps what no caller wants from
// going further. When a re-read changes the backend's resources, the stream is opened again
// with the new list.

// subscriptions adds to f the backend's own URIs of the resources registered for it (as the
// last catalog read left them), when caps say it accepts subscriptions.
func (b *backend) subscriptions(f client.ListenFilter, caps capabilities) client.ListenFilter {
	if caps.Resources == nil || !caps.Resources.Subscribe {
		return f
	}
	if uris := b.subscribable.Load(); uris != nil && len(*uris) > 0 {
		f.ResourceSubscriptions = *uris
	}
	return f
}

// noteSubscribable keeps the URIs subscriptions asks for: the backend's own URIs of the
// resources registered, sorted, at most fastmcp.MaxResourceSubscriptions. It runs where
// the registry is written (refresh), so that listen, on another goroutine, reads a copy.
func (b *backend) noteSubscribable() {
	uris := make([]string, 0, len(b.reg.resources))
	for uri := range b.reg.resources {
		uris = append(uris, b.names.OwnURI(uri))
	}
	slices.Sort(uris)
	if len(uris) > fastmcp.MaxResourceSubscriptions {
		b.log.Warn("gateway: the backend lists more resources than one listen stream subscribes to; the rest get no resources/updated",
			"resources", len(uris), "subscribed", fastmcp.MaxResourceSubscriptions)
		uris = uris[:fastmcp.MaxResourceSubscriptions]
	}
	b.subscribable.Store(&uris)
}

// resourceUpdated forwards a backend's notifications/resources/updated under the Gateway's
// URI; it ignores any other notification.
func (b *backend) resourceUpdated(n client.Notification) {
	if n.Method != "notifications/resources/updated" {
		return
	}
	if uri := decode.Lookup(n.Params, "uri"); uri.Type() == decode.TypeString && uri.String() != "" {
		b.g.srv.NotifyResourceUpdated(b.names.URI(uri.String()))
	}
}

// OwnURI is the backend's own URI of one of the Gateway's URIs of it.
func (n namer) OwnURI(uri string) string { return strings.TrimPrefix(uri, n.schemePrefix) }
