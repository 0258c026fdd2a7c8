package jsonschema_test

import (
	"fmt"

	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

func Example() {
	type Args struct {
		Region string `json:"region" description:"Cloud region" mcpheader:"Region"`
		Query  string `json:"query" jsonschema:"minLength=1"`
		Limit  int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100"`
	}
	raw, err := jsonschema.Derive[Args]()
	if err != nil {
		panic(err)
	}
	fmt.Println(string(raw))

	params, err := jsonschema.HeaderParams(raw)
	if err != nil {
		panic(err)
	}
	fmt.Println(params[0].Header(), params[0].Path, params[0].Type)

	schema, err := jsonschema.Compile(raw)
	if err != nil {
		panic(err)
	}
	fmt.Println(schema.Validate([]byte(`{"region":"eu","query":"select 1"}`)))
	fmt.Println(schema.Validate([]byte(`{"region":"eu","query":7}`)))
	fmt.Println(schema.Validate([]byte(`{"query":"select 1","limit":0}`)))
	// Output:
	// {"type":"object","properties":{"region":{"type":"string","description":"Cloud region","x-mcp-header":"Region"},"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["region","query"]}
	// Mcp-Param-Region [region] string
	// <nil>
	// arguments: /query: expected string, got number
	// arguments: missing required property "region" (and 1 more error)
}
