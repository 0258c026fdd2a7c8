package fastmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// envelope is the _meta every 2026-07-28 request carries; caps are the client's capabilities.
func envelope(caps string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":` + caps + `}`
}

// A Server serves one JSON-RPC message at a time; a transport hands it the bytes it read and
// writes back the reply. Here Dispatch gets literal requests: server/discover, which reports
// what the server offers, and resources/read.
func ExampleServer() {
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "notes", Version: "1.0.0"}, &fastmcp.Config{
		Instructions: "Read notes://today first.",
	})
	if err != nil {
		log.Fatal(err)
	}
	s.AddResource(fastmcp.Resource{URI: "notes://today", Name: "today", MimeType: "text/plain"},
		func(ctx context.Context, r *fastmcp.Request, uri string) ([]fastmcp.ResourceContents, error) {
			return []fastmcp.ResourceContents{{Text: "Buy milk."}}, nil
		})

	ctx := context.Background()
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + envelope(`{}`) + `}}`
	fmt.Println(string(s.Dispatch(ctx, []byte(discover), nil)))
	read := `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"notes://today",` + envelope(`{}`) + `}}`
	fmt.Println(string(s.Dispatch(ctx, []byte(read), nil)))
	missing := `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"notes://tomorrow",` + envelope(`{}`) + `}}`
	fmt.Println(string(s.Dispatch(ctx, []byte(missing), nil)))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"logging":{},"resources":{"subscribe":true,"listChanged":true}},"instructions":"Read notes://today first.","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"notes","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","contents":[{"uri":"notes://today","mimeType":"text/plain","text":"Buy milk."}],"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"notes","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"notes://tomorrow"}}}
}

// A typed tool: the arguments decode into In, whose fields (json and description tags) give
// the input schema that tools/list shows and every call is validated against. Arguments that
// do not match are an isError result the model can read, not a protocol error.
func ExampleAddTool() {
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	type In struct {
		City string `json:"city" description:"City name"`
	}
	fastmcp.AddTool(s, fastmcp.Tool{Name: "forecast", Description: "Tomorrow's weather"},
		func(ctx context.Context, r *fastmcp.Request, in In) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: "Sunny in " + in.City}, nil
		})

	ctx := context.Background()
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + envelope(`{}`) + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo"},` + envelope(`{}`) + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forecast","arguments":{"town":"Oslo"},` + envelope(`{}`) + `}}`,
	} {
		fmt.Println(string(s.Dispatch(ctx, []byte(req), nil)))
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"forecast","description":"Tomorrow's weather","inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}}],"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"Sunny in Oslo"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"type":"text","text":"Invalid arguments: missing required property \"city\""}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}}}}
}

// A handler that needs the user's confirmation returns an *InputRequired. The client gets an
// input_required result, asks the user, and retries the same call with a new id, the answer in
// inputResponses and the requestState it got (sealed by the server, so it is printed here as
// <state>). The handler runs again and finds the answer.
func ExampleInputRequired() {
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "deploy", Version: "1.0.0"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	s.AddRawTool(fastmcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, r *fastmcp.Request, args json.RawMessage) (fastmcp.ToolResult, error) {
			var answer struct {
				Action  string `json:"action"`
				Content struct {
					OK bool `json:"ok"`
				} `json:"content"`
			}
			if ok, err := r.InputResponse("confirm", &answer); err != nil {
				return fastmcp.ToolResult{}, err
			} else if !ok {
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
					"confirm": fastmcp.ElicitForm("Deploy to production?", schema),
				}}
			}
			if answer.Action != "accept" || !answer.Content.OK {
				return fastmcp.ToolResult{Text: "Not deployed."}, nil
			}
			return fastmcp.ToolResult{Text: "Deployed."}, nil
		})

	ctx := context.Background()
	caps := `{"elicitation":{}}`
	first := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy",` + envelope(caps) + `}}`
	reply := s.Dispatch(ctx, []byte(first), nil)
	var r struct {
		Result struct{ RequestState string }
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		log.Fatal(err)
	}
	state := r.Result.RequestState
	fmt.Println(strings.Replace(string(reply), state, "<state>", 1))

	retry := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy",` +
		`"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"` + state + `",` + envelope(caps) + `}}`
	fmt.Println(string(s.Dispatch(ctx, []byte(retry), nil)))

	// Without the elicitation capability the server may not ask.
	noCaps := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy",` + envelope(`{}`) + `}}`
	fmt.Println(string(s.Dispatch(ctx, []byte(noCaps), nil)))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy to production?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}},"requestState":"<state>","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"deploy","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"Deployed."}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"deploy","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":3,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}
}
