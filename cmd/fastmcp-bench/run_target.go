package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// targetDiscoveryTimeout bounds the discovery of a --target before any load: connecting
// (server/discover, or the initialize handshake) and listing its tools. A target that has not
// answered by then is reported as unreachable, and no load starts.
const targetDiscoveryTimeout = 10 * time.Second

// targetInfo is what run learned of a --target with the client package before its load.
type targetInfo struct {
	url      string
	version  string // the revision the client negotiated
	modern   bool   // settled by server/discover, not the initialize handshake
	tools    int    // tools the target lists
	tool     string // the tool the load calls
	arg      string // its string argument the load fills
	dialect  loadtest.Dialect
	explicit bool // --dialect was given: the target was checked in that revision
}

// String is the one line run prints before the load.
func (ti *targetInfo) String() string {
	how := "initialize"
	if ti.modern {
		how = "server/discover"
	}
	if ti.explicit {
		how += ", pinned by --dialect"
	}
	return fmt.Sprintf("target %s: %s (%s), %d tools; the load calls %s with its string argument %q",
		ti.url, ti.version, how, ti.tools, ti.tool, ti.arg)
}

// discoverTarget connects to o.target with the client package (era auto, or the era of an
// explicit --dialect), lists its tools and checks the tool the load calls: it must exist and
// take one string argument (--arg, or derived from its inputSchema) and require no other.
// It returns what the load needs: the dialect of the negotiated revision, which must be one
// the load generator speaks. The error names the target.
func discoverTarget(ctx context.Context, o *runOptions) (*targetInfo, error) {
	ti, err := discover(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", o.target, err)
	}
	return ti, nil
}

func discover(ctx context.Context, o *runOptions) (*targetInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, targetDiscoveryTimeout)
	defer cancel()
	if err := checkLoopback(o.target); err != nil {
		return nil, err
	}
	ti := &targetInfo{url: o.target, tool: o.tool, explicit: o.dialectSet}
	if ti.tool == "" {
		ti.tool = loadtest.DefaultTool
	}
	cfg := client.Config{ClientName: "fastmcp-bench", ClientVersion: version(), Era: client.EraAuto,
		RequestTimeout: targetDiscoveryTimeout}
	if o.dialectSet {
		d, err := loadtest.ParseDialect(o.dialect)
		if err != nil {
			return nil, err
		}
		cfg.Era = client.EraModern
		if d == loadtest.DialectLegacy {
			cfg.Era = client.EraLegacy
		}
	}
	c, err := client.Connect(ctx, o.target, cfg)
	if err != nil {
		return nil, fmt.Errorf("unreachable or not an MCP server: %w", err)
	}
	defer c.Close()
	ti.version, ti.modern = c.ProtocolVersion(), c.Modern()
	if ti.dialect, err = loadtest.ParseDialect(ti.version); err != nil {
		return nil, fmt.Errorf("it speaks %s; the load generator speaks %s and %s", ti.version,
			loadtest.ProtocolVersion, loadtest.LegacyVersion)
	}
	if cfg.Era == client.EraModern {
		// A pinned modern client sends nothing at Connect: the listing below is its check.
		ti.modern = true
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	ti.tools = len(tools)
	i := slices.IndexFunc(tools, func(t client.Tool) bool { return t.Name == ti.tool })
	if i < 0 {
		names := make([]string, len(tools))
		for j, t := range tools {
			names[j] = t.Name
		}
		return nil, fmt.Errorf("it lists no tool %q, which the load calls (--tool); it lists: %s", ti.tool, strings.Join(names, ", "))
	}
	if ti.arg, err = loadArgument(tools[i].InputSchema, o.arg); err != nil {
		return nil, fmt.Errorf("tool %s: %w", ti.tool, err)
	}
	return ti, nil
}

// loadArgument picks the string argument the load fills from a tool's inputSchema: want when
// given (it must be a string property), else "text" when it is one, else the only string
// property. The tool may require no other argument: the load sends one. A schema that lists
// no properties accepts want, or loadtest.DefaultArgName.
func loadArgument(schema json.RawMessage, want string) (string, error) {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(schema) > 0 {
		if err := json.Unmarshal(schema, &s); err != nil {
			return "", fmt.Errorf("inputSchema: %w", err)
		}
	}
	if len(s.Properties) == 0 && len(s.Required) == 0 {
		if want == "" {
			want = loadtest.DefaultArgName
		}
		return want, nil
	}
	isString := func(name string) bool {
		p, ok := s.Properties[name]
		var t string
		return ok && json.Unmarshal(p.Type, &t) == nil && t == "string"
	}
	var strs []string
	for name := range s.Properties {
		if isString(name) {
			strs = append(strs, name)
		}
	}
	slices.Sort(strs)
	arg := want
	switch {
	case want != "" && !isString(want):
		return "", fmt.Errorf("--arg %q is not a string property of its inputSchema (string properties: %s)", want, listOrNone(strs))
	case want != "":
	case isString(loadtest.DefaultArgName):
		arg = loadtest.DefaultArgName
	case len(strs) == 1:
		arg = strs[0]
	default:
		return "", fmt.Errorf("no string argument to fill: name one with --arg (string properties: %s)", listOrNone(strs))
	}
	var others []string
	for _, r := range s.Required {
		if r != arg {
			others = append(others, r)
		}
	}
	if len(others) > 0 {
		return "", fmt.Errorf("it requires %s besides %q, and the load sends only %q", strings.Join(others, ", "), arg, arg)
	}
	return arg, nil
}

// checkLoopback refuses a target that is not this machine before the client dials it, as
// the load generator would before its first request.
func checkLoopback(target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q is not a loopback address: load tests only target this machine", host)
	}
	return nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
