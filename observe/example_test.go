package observe_test

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/observe"
)

type echoIn struct {
	Text string `json:"text"`
}

// Example records a tools/call in the request histogram and reads the series back.
func Example() {
	reg := prometheus.NewRegistry()
	m, err := observe.NewMetrics(observe.MetricsConfig{Registerer: reg})
	if err != nil {
		panic(err)
	}
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "demo", Version: "1.0.0"}, &fastmcp.Config{Observer: m})
	if err != nil {
		panic(err)
	}
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "echo"}, func(_ context.Context, _ *fastmcp.Request, in echoIn) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: in.Text}, nil
	})
	srv.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hi"}}}`), nil)

	families, _ := reg.Gather()
	for _, f := range families {
		for _, s := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			fmt.Println(f.GetName(), labels[observe.LabelMethod], labels[observe.LabelTool], labels[observe.LabelProtocolVersion], s.GetHistogram().GetSampleCount())
		}
	}
	// Output: mcp_server_operation_duration_seconds tools/call echo 2026-07-28 1
}
