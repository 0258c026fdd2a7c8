package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
)

func init() {
	register(command{
		Name:    "conformance-client",
		Summary: "the conformance suite's client under test: conformance-client URL (scenario from MCP_CONFORMANCE_SCENARIO)",
		Run: func(ctx context.Context, args []string) int {
			return runConformanceClient(ctx, args, os.Stderr)
		},
	})
}

// scenarioFunc drives one client-mode scenario over a connected client.
type scenarioFunc func(ctx context.Context, c *client.Client, cc conformanceContext) error

// clientScenarios are the scenarios conformance-client knows: the non-auth client scenarios
// scored by --requirements 2026-07-28 and 2025-11-25 (tools_call is in both).
var clientScenarios = map[string]scenarioFunc{
	"initialize":                          scenarioListTools,
	"tools_call":                          scenarioToolsCall,
	"request-metadata":                    scenarioRequestMetadata,
	"sep-2322-client-request-state":       scenarioRequestState,
	"http-standard-headers":               scenarioStandardHeaders,
	"http-custom-headers":                 scenarioCustomHeaders,
	"http-invalid-tool-headers":           scenarioCallEveryTool,
	"json-schema-ref-no-deref":            scenarioListTools,
	"elicitation-sep1034-client-defaults": scenarioElicitationDefaults,
	"sse-retry":                           scenarioSSERetry,
}

// runConformanceClient is `fastmcp-bench conformance-client URL`: it connects to URL pinned to
// MCP_CONFORMANCE_PROTOCOL_VERSION's era (2026-07-28 modern, anything else the initialize
// era), with the SEP-1034 elicitation handler, and drives MCP_CONFORMANCE_SCENARIO. Exit 0
// when the scenario ran to its end, 1 when a step failed, 2 on a usage error or an unknown
// scenario.
func runConformanceClient(ctx context.Context, args []string, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "Usage: %s=NAME fastmcp-bench conformance-client URL\n", envScenario)
		return 2
	}
	name := os.Getenv(envScenario)
	run, ok := clientScenarios[name]
	if !ok {
		known := make([]string, 0, len(clientScenarios))
		for k := range clientScenarios {
			known = append(known, k)
		}
		slices.Sort(known)
		fmt.Fprintf(stderr, "conformance-client: unknown %s %q (known: %s)\n", envScenario, name, strings.Join(known, ", "))
		return 2
	}
	cc, err := readConformanceContext()
	if err != nil {
		fmt.Fprintf(stderr, "conformance-client: %v\n", err)
		return 2
	}
	cfg := client.Config{
		ClientName:    "fastmcp-bench",
		ClientVersion: version(),
		Era:           client.EraLegacy,
		Elicitation:   elicitDefaults,
	}
	if os.Getenv(envVersion) == "2026-07-28" {
		cfg.Era = client.EraModern
	}
	if strings.HasPrefix(name, "auth/") {
		if cfg.Authorizer, err = conformanceAuthorizer(args[0], cc); err != nil {
			fmt.Fprintf(stderr, "conformance-client %s: %v\n", name, err)
			return 2
		}
	}
	// The suite kills a client after 30 s; ending first says which step hung.
	ctx, cancel := context.WithTimeout(ctx, 25*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, args[0], cfg)
	if err != nil {
		fmt.Fprintf(stderr, "conformance-client %s: connect: %v\n", name, err)
		return 1
	}
	defer c.Close()
	if err := run(ctx, c, cc); err != nil {
		fmt.Fprintf(stderr, "conformance-client %s: %v\n", name, err)
		return 1
	}
	return 0
}

func scenarioListTools(ctx context.Context, c *client.Client, _ conformanceContext) error {
	_, err := c.ListTools(ctx)
	return wrap("tools/list", err)
}

// scenarioToolsCall lists the tools and calls add_numbers with two numbers.
func scenarioToolsCall(ctx context.Context, c *client.Client, _ conformanceContext) error {
	if _, err := c.ListTools(ctx); err != nil {
		return wrap("tools/list", err)
	}
	return callTool(ctx, c, "add_numbers", json.RawMessage(`{"a":5,"b":3}`))
}

// scenarioRequestMetadata: the server rejects the first request with -32022, which the client
// retries once with a version the error names; then discover and list.
func scenarioRequestMetadata(ctx context.Context, c *client.Client, _ conformanceContext) error {
	if _, err := c.Discover(ctx); err != nil {
		return wrap("server/discover", err)
	}
	_, err := c.ListTools(ctx)
	return wrap("tools/list", err)
}

// scenarioRequestState calls the four MRTR tools in turn; the client fulfils the
// input_required rounds itself, echoing requestState under a new id.
func scenarioRequestState(ctx context.Context, c *client.Client, _ conformanceContext) error {
	if _, err := c.ListTools(ctx); err != nil {
		return wrap("tools/list", err)
	}
	for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
		if err := callTool(ctx, c, name, nil); err != nil {
			return err
		}
	}
	return nil
}

// scenarioStandardHeaders sends every method that carries Mcp-Method and Mcp-Name.
func scenarioStandardHeaders(ctx context.Context, c *client.Client, _ conformanceContext) error {
	tools, err := c.ListTools(ctx)
	if err != nil {
		return wrap("tools/list", err)
	}
	for _, t := range tools {
		if err := callTool(ctx, c, t.Name, nil); err != nil {
			return err
		}
	}
	resources, err := c.ListResources(ctx)
	if err != nil {
		return wrap("resources/list", err)
	}
	for _, r := range resources {
		if _, err := c.ReadResource(ctx, r.URI); err != nil {
			return wrap("resources/read "+r.URI, err)
		}
	}
	prompts, err := c.ListPrompts(ctx)
	if err != nil {
		return wrap("prompts/list", err)
	}
	for _, p := range prompts {
		if _, err := c.GetPrompt(ctx, p.Name, nil); err != nil {
			return wrap("prompts/get "+p.Name, err)
		}
	}
	return nil
}

// scenarioCustomHeaders makes the calls MCP_CONFORMANCE_CONTEXT lists, after tools/list taught
// the client the tools' x-mcp-header annotations.
func scenarioCustomHeaders(ctx context.Context, c *client.Client, cc conformanceContext) error {
	if len(cc.ToolCalls) == 0 {
		return fmt.Errorf("%s lists no toolCalls", envContext)
	}
	if _, err := c.ListTools(ctx); err != nil {
		return wrap("tools/list", err)
	}
	for _, call := range cc.ToolCalls {
		if err := callTool(ctx, c, call.Name, call.Arguments); err != nil {
			return err
		}
	}
	return nil
}

// scenarioCallEveryTool calls each tool the list kept: the client must have dropped the ones
// with invalid x-mcp-header annotations.
func scenarioCallEveryTool(ctx context.Context, c *client.Client, _ conformanceContext) error {
	tools, err := c.ListTools(ctx)
	if err != nil {
		return wrap("tools/list", err)
	}
	for _, t := range tools {
		args := json.RawMessage(`{"region":"us-west1"}`) // valid_tool's one (required) argument
		if t.Name != "valid_tool" {
			args = nil
		}
		if err := callTool(ctx, c, t.Name, args); err != nil {
			return err
		}
	}
	return nil
}

// scenarioElicitationDefaults calls the tool whose elicitation elicitDefaults answers.
func scenarioElicitationDefaults(ctx context.Context, c *client.Client, _ conformanceContext) error {
	if _, err := c.ListTools(ctx); err != nil {
		return wrap("tools/list", err)
	}
	return callTool(ctx, c, "test_client_elicitation_defaults", nil)
}

// scenarioSSERetry calls the tool whose SSE stream the server closes after a priming event:
// the client must resume it with GET after the retry interval.
func scenarioSSERetry(ctx context.Context, c *client.Client, _ conformanceContext) error {
	if _, err := c.ListTools(ctx); err != nil {
		return wrap("tools/list", err)
	}
	return callTool(ctx, c, "test_reconnection", nil)
}

// callTool calls name; a tool error (isError) is a failed step too.
func callTool(ctx context.Context, c *client.Client, name string, args json.RawMessage) error {
	res, err := c.CallTool(ctx, name, args)
	if err != nil {
		return wrap("tools/call "+name, err)
	}
	if res.IsError {
		return fmt.Errorf("tools/call %s: tool error: %s", name, res.Content)
	}
	return nil
}

func wrap(step string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", step, err)
}

// The conformance suite's client mode runs `fastmcp-bench conformance-client URL` with these
// in the environment (interop/README.md lists what each scenario asks of the client).
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envVersion  = "MCP_CONFORMANCE_PROTOCOL_VERSION"
	envContext  = "MCP_CONFORMANCE_CONTEXT"
)

// conformanceContext is MCP_CONFORMANCE_CONTEXT: the scenario's name; for
// http-custom-headers, the calls to make with their exact arguments; for
// auth/pre-registration and auth/client-credentials-*, the client's credentials.
type conformanceContext struct {
	Name      string `json:"name"`
	ToolCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
}

// readConformanceContext parses MCP_CONFORMANCE_CONTEXT; unset is the zero context.
func readConformanceContext() (conformanceContext, error) {
	var cc conformanceContext
	raw := os.Getenv(envContext)
	if raw == "" {
		return cc, nil
	}
	if err := json.Unmarshal([]byte(raw), &cc); err != nil {
		return cc, fmt.Errorf("%s: %w", envContext, err)
	}
	return cc, nil
}

// elicitDefaults answers an elicitation/create by accepting with every property of the
// requested schema that declares a default set to it (SEP-1034, the
// elicitation-sep1034-client-defaults scenario); properties without one are left out, which
// the scenarios' other elicitations (a bare "confirmed" boolean) accept.
func elicitDefaults(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		RequestedSchema struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("elicitation/create params: %w", err)
	}
	content := make(map[string]json.RawMessage, len(p.RequestedSchema.Properties))
	for name, prop := range p.RequestedSchema.Properties {
		if len(prop.Default) > 0 {
			content[name] = prop.Default
		}
	}
	return json.Marshal(struct {
		Action  string                     `json:"action"`
		Content map[string]json.RawMessage `json:"content"`
	}{"accept", content})
}
