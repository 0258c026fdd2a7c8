package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/fastmcp-go/fastmcp"

// allowed lists, per package, the module packages and third-party module prefixes its
// non-test build may depend on (directly or not), with the reason in the design. The standard
// library is always allowed, except package testing, and net/http: these rings are
// transport-free (Streamable HTTP's status table, in fastmcp/transport, is plain numbers).
var allowed = map[string][]string{
	// The rule every ring's Config follows (zero is the default, negative is an error), shared
	// by the rings below: the standard library alone.
	"internal/defaults": {},
	// The decoder is the hottest code and stands alone.
	"decode": {"internal/defaults", "github.com/bytedance/", "github.com/cloudwego/", "github.com/klauspost/cpuid", "golang.org/x/arch", "github.com/twitchyliquid64/golang-asm"},
	// Users embed the executor on its own: it knows nothing of JSON-RPC or MCP.
	"pool": {"internal/defaults", "github.com/panjf2000/ants/v2", "golang.org/x/sync"},
	// Event-stream framing writes to an io.Writer and knows nothing of fasthttp or MCP.
	"sse": {"internal/defaults"},
	// The client measurement is built by the peers' module too (bench/peers/clients), whose
	// dependencies it must not pull in: the standard library alone.
	"bench/clientbench": {},
	// The core is transport-free: never fasthttp, sse, stdio or streamable.
	"fastmcp": {"decode", "pool", "fastmcp/internal/corelink", "internal/defaults", "internal/jsonschema", "internal/jsonnum", "internal/sealstate", "internal/uritemplate",
		"github.com/bytedance/", "github.com/cloudwego/", "github.com/klauspost/cpuid", "golang.org/x/arch", "github.com/twitchyliquid64/golang-asm",
		"github.com/panjf2000/ants/v2", "golang.org/x/sync", "github.com/santhosh-tekuri/jsonschema", "golang.org/x/text"},
	// What the buses share knows no broker or database: each bus/<name> adds its own driver.
	"bus": {"fastmcp", "decode", "pool", "fastmcp/internal/corelink", "internal/defaults", "internal/jsonschema", "internal/jsonnum", "internal/sealstate", "internal/uritemplate",
		"github.com/bytedance/", "github.com/cloudwego/", "github.com/klauspost/cpuid", "golang.org/x/arch", "github.com/twitchyliquid64/golang-asm",
		"github.com/panjf2000/ants/v2", "golang.org/x/sync", "github.com/santhosh-tekuri/jsonschema", "golang.org/x/text"},
	// The API for transport authors is the core's other side, and no more: nothing of any
	// transport's own (no HTTP: its status table is plain numbers).
	"fastmcp/transport": {"fastmcp", "decode", "pool", "internal/defaults", "internal/jsonschema", "internal/jsonnum", "internal/sealstate", "internal/uritemplate",
		"github.com/bytedance/", "github.com/cloudwego/", "github.com/klauspost/cpuid", "golang.org/x/arch", "github.com/twitchyliquid64/golang-asm",
		"github.com/panjf2000/ants/v2", "golang.org/x/sync", "github.com/santhosh-tekuri/jsonschema", "golang.org/x/text"},
	// stdio is a thin transport over the core: no HTTP, no other transport's framing.
	"stdio": {"fastmcp", "decode", "pool", "internal/defaults", "internal/jsonschema", "internal/jsonnum", "internal/sealstate", "internal/uritemplate",
		"github.com/bytedance/", "github.com/cloudwego/", "github.com/klauspost/cpuid", "golang.org/x/arch", "github.com/twitchyliquid64/golang-asm",
		"github.com/panjf2000/ants/v2", "golang.org/x/sync", "github.com/santhosh-tekuri/jsonschema", "golang.org/x/text", "golang.org/x/sys"},
	// The client speaks the wire: decode and fasthttp only, never the server core or the
	// executor (TestClientReachesNeitherCoreNorExecutor), so a program that only dials servers
	// links neither. The in-process transport (client/inprocess) reaches the client through
	// client/internal/clientlink. fasthttp depends on net/http, so the client may reach it but
	// never import it (TestClientImportsNoNetHTTP).
	"client": {"decode", "client/internal/clientlink", "internal/defaults",
		"github.com/valyala/fasthttp", "github.com/valyala/bytebufferpool", "github.com/klauspost/compress", "github.com/molecule-man/go-brrr",
		"github.com/bytedance/", "github.com/cloudwego/", "github.com/klauspost/cpuid", "golang.org/x/arch", "github.com/twitchyliquid64/golang-asm", "golang.org/x/sys"},
	// The gateway is a server whose catalog comes from clients: the core and the client (and
	// what they reach: client/oauth too, whose client credentials are a backend's own), no
	// transport of its own (never streamable, stdio or sse), no resource server (oauth/),
	// database or telemetry driver. fasthttp, through the client, reaches net/http.
	"gateway": {"fastmcp", "client", "client/oauth", "decode", "pool", "client/internal/clientlink", "fastmcp/internal/corelink", "internal/defaults", "internal/jsonschema", "internal/jsonnum", "internal/sealstate", "internal/uritemplate", "internal/loopback",
		"github.com/go-jose/go-jose/v4", "golang.org/x/oauth2",
		"github.com/valyala/fasthttp", "github.com/valyala/bytebufferpool", "github.com/klauspost/compress", "github.com/molecule-man/go-brrr",
		"github.com/bytedance/", "github.com/cloudwego/", "github.com/klauspost/cpuid", "golang.org/x/arch", "github.com/twitchyliquid64/golang-asm",
		"github.com/panjf2000/ants/v2", "golang.org/x/sync", "github.com/santhosh-tekuri/jsonschema", "golang.org/x/text", "golang.org/x/sys"},
	// The link between the client and its in-process transport names neither side: the
	// standard library alone.
	"client/internal/clientlink": {},
	// The bench binary's load generator measures an endpoint from outside, over the wire:
	// fasthttp's codecs and HDR histograms, never the server packages it measures.
	"internal/loadtest": {"internal/loopback", "github.com/valyala/fasthttp", "github.com/valyala/bytebufferpool", "github.com/klauspost/compress", "github.com/molecule-man/go-brrr",
		"github.com/HdrHistogram/hdrhistogram-go", "golang.org/x/sys"},
}

// reachesNetHTTP lists the packages whose allowed third-party dependencies import net/http.
var reachesNetHTTP = map[string]bool{"client": true, "internal/loadtest": true, "gateway": true}

// TestDependencies runs `go list -deps` on each package of the inner rings and fails on any
// dependency outside its allowance.
func TestDependencies(t *testing.T) {
	for pkg, allow := range allowed {
		t.Run(pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", module+"/"+pkg).Output()
			require.NoError(t, err)
			for _, dep := range strings.Fields(string(out)) {
				first, _, _ := strings.Cut(dep, "/")
				if !strings.Contains(first, ".") { // standard library
					assert.NotEqual(t, "testing", dep, "%s must not import testing outside tests", pkg)
					if !reachesNetHTTP[pkg] {
						assert.NotEqual(t, "net/http", dep, "%s must not depend on net/http", pkg)
					}
					continue
				}
				if dep == module+"/"+pkg || permitted(dep, allow) {
					continue
				}
				t.Errorf("%s depends on %s, which the design does not allow", pkg, dep)
			}
		})
	}
}

func permitted(dep string, allow []string) bool {
	for _, a := range allow {
		if !strings.Contains(a, ".") {
			a = module + "/" + a
		}
		if strings.HasPrefix(dep, a) {
			return true
		}
	}
	return false
}

// testHelpers are the module's packages made for tests: they import testing and testify, so no
// package's non-test build may depend on them (tests import them freely).
var testHelpers = []string{"internal/wireschema", "internal/wirevector", "internal/pgtest", "tasks/storetest", "bus/bustest"}

// TestHelpersOnlyInTests fails when a package's non-test build depends on a test helper.
func TestHelpersOnlyInTests(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, module+"/...").Output()
	require.NoError(t, err)
	helper := map[string]bool{}
	for _, h := range testHelpers {
		helper[module+"/"+h] = true
	}
	for line := range strings.Lines(string(out)) {
		pkg, deps, _ := strings.Cut(strings.TrimSpace(line), " ")
		if helper[pkg] {
			continue
		}
		for _, dep := range strings.Fields(deps) {
			assert.False(t, helper[dep], "%s depends on the test helper %s outside its tests", pkg, dep)
		}
	}
	require.Contains(t, string(out), module+"/internal/wirevector ", "the helpers are listed")
}

// drivers maps each database or broker driver's module to the packages that may import it:
// the store and the bus built on it (and internal/pgtest, their tests' databases). Everything else reaches a database through tasks.Store
// and a broker through fastmcp.EventBus.
var drivers = map[string][]string{
	"modernc.org/sqlite":         {"tasks/sqlitestore"},
	"github.com/jackc/pgx/":      {"tasks/pgstore", "bus/pgbus", "internal/pgtest"},
	"github.com/nats-io/nats.go": {"bus/natsbus"},
}

// TestDriversOnlyInTheirStores fails when a package other than a driver's store imports it.
func TestDriversOnlyInTheirStores(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	require.NoError(t, err)
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), " ")
		for _, imp := range strings.Fields(imports) {
			for driver, owners := range drivers {
				if strings.HasPrefix(imp, driver) {
					assert.True(t, slices.Contains(owners, strings.TrimPrefix(pkg, module+"/")),
						"only %v may import %s, not %s", owners, imp, pkg)
				}
			}
		}
	}
	require.Contains(t, string(out), "modernc.org/sqlite", "the SQLite store is listed")
}
