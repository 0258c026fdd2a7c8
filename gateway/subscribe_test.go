package gateway

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// TestResourceSubscriptionsRouted: a caller subscribed to a backend's resource under the
// Gateway's URI hears the backend's resources/updated for it, from a 2026-07-28 backend
// (its listen stream's resourceSubscriptions) and from an initialize-era one (resources/
// subscribe on its session, its GET stream); a caller subscribed to the other backend's
// resource hears only that one's.
func TestResourceSubscriptionsRouted(t *testing.T) {
	modern := newBackendServer("m", nil)
	urlM, _ := serveHTTP(t, modern, "", nil)
	legacy := newBackendServer("l", nil, fastmcp.Legacy20251125)
	urlL, _ := serveHTTPWith(t, legacy, streamable.ListenerConfig{Config: streamable.Config{LegacySessions: true}}, nil)
	g, gw := startGateway(t, Config{Backends: []Backend{{Name: "m", URL: urlM}, {Name: "l", URL: urlL}}})
	for _, st := range g.Status() {
		require.True(t, st.Up, "%s: %v", st.Name, st.Err)
	}

	c := connect(t, gw, client.EraModern)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	subM, err := c.Listen(ctx, client.ListenFilter{ResourceSubscriptions: []string{"m+mem://note"}})
	require.NoError(t, err)
	defer subM.Close()
	subL, err := c.Listen(ctx, client.ListenFilter{ResourceSubscriptions: []string{"l+mem://note"}})
	require.NoError(t, err)
	defer subL.Close()

	// The backends may still be opening their streams to the gateway: each update is
	// repeated until it is heard, and the other caller must hear none of it.
	heard := func(backend *fastmcp.Server, sub, other *client.Subscription, uri, own string) {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case n, ok := <-sub.C:
				require.True(t, ok, "the caller's listen stream ended")
				require.Equal(t, "notifications/resources/updated", n.Method)
				assert.Contains(t, string(n.Params), `"uri":"`+uri+`"`)
				select {
				case n := <-other.C:
					t.Fatalf("the other subscription heard %s %s", n.Method, n.Params)
				default:
				}
				return
			case <-tick.C:
				backend.NotifyResourceUpdated(own)
			case <-ctx.Done():
				t.Fatalf("%s: no resources/updated reached the caller", uri)
			}
		}
	}
	heard(modern, subM, subL, "m+mem://note", "mem://note")
	heard(legacy, subL, subM, "l+mem://note", "mem://note")

	// A resource the backend adds later is subscribed once the gateway has read it.
	modern.AddResource(fastmcp.Resource{URI: "mem://late", Name: "late"}, func(ctx context.Context, r *fastmcp.Request, uri string) ([]fastmcp.ResourceContents, error) {
		return []fastmcp.ResourceContents{{URI: uri, Text: "late"}}, nil
	})
	waitFor(t, "the gateway to list m+mem://late", func() bool {
		res, err := c.ListResources(ctx)
		require.NoError(t, err)
		return slices.ContainsFunc(res, func(r client.Resource) bool { return r.URI == "m+mem://late" })
	})
	subLate, err := c.Listen(ctx, client.ListenFilter{ResourceSubscriptions: []string{"m+mem://late"}})
	require.NoError(t, err)
	defer subLate.Close()
	heard(modern, subLate, subL, "m+mem://late", "mem://late")
}
