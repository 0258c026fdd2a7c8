package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
)

// The conformance suite's client mode runs `fastmcp-bench conformance-client URL` with these
// in the environment (interop/README.md lists what each scenario asks of the client).
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envVersion  = "MCP_CONFORMANCE_PROTOCOL_VERSION"
	envContext  = "MCP_CONFORMANCE_CONTEXT"
)

// conformanceContext is MCP_CONFORMANCE_CONTEXT: the scenario's name and, for
// http-custom-headers, the calls to make with their exact arguments.
type conformanceContext struct {
	Name      string `json:"name"`
	ToolCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
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
