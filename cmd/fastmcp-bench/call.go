package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/client"
)

func init() {
	register(command{
		Name:    "call",
		Summary: "call one tool on any MCP server (either era): call URL TOOL key=value...",
		Run: func(ctx context.Context, args []string) int {
			return runCall(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

// runCall is `fastmcp-bench call [flags] URL TOOL key=value...`: it connects with the client
// package (era auto unless --era says otherwise), lists the tools to type the arguments by
// TOOL's inputSchema, calls it, and prints each text block on its own line, other blocks and
// structuredContent as compact JSON; progress updates go to stderr. Exit 0 on a result, 1 on a tool error (isError) or a
// failure, 2 on a usage error.
func runCall(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	era := fs.String("era", "auto", "protocol era: auto (the default: server/discover, else initialize), modern (2026-07-28), legacy (initialize offering 2025-11-25) or 2025-06-18 (initialize pinned to it)")
	timeout := fs.Duration("timeout", client.DefaultRequestTimeout, "bound of each request")
	command := fs.String("command", "", "start this `command line` (split at spaces) as a stdio server instead of dialling a URL")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: fastmcp-bench call [flags] URL TOOL [key=value...]")
		fmt.Fprintln(stderr, "       fastmcp-bench call [flags] --command 'CMD ARGS' TOOL [key=value...]")
		fmt.Fprintln(stderr, "Values are typed by the tool's inputSchema; untyped ones are JSON when they parse as JSON, else strings.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageStatus(err)
	}
	cfg := client.Config{ClientName: "fastmcp-bench", ClientVersion: version(), RequestTimeout: *timeout}
	target, rest := "", fs.Args()
	if words := strings.Fields(*command); len(words) > 0 {
		cfg.Command, cfg.Args = words[0], words[1:]
	} else if len(rest) > 0 {
		target, rest = rest[0], rest[1:]
	}
	if len(rest) < 1 {
		fs.Usage()
		return 2
	}
	switch *era {
	case "auto":
		cfg.Era = client.EraAuto
	case "modern":
		cfg.Era = client.EraModern
	case "legacy":
		cfg.Era = client.EraLegacy
	case "2025-06-18":
		cfg.Era = client.EraLegacy20250618
	default:
		fmt.Fprintf(stderr, "call: --era must be auto, modern, legacy or 2025-06-18, got %q\n", *era)
		return 2
	}
	if *timeout <= 0 {
		fmt.Fprintf(stderr, "call: --timeout must be positive, got %v\n", *timeout)
		return 2
	}
	progress := func(p client.Progress) { // to stderr, so stdout stays the result alone
		if p.Total > 0 {
			fmt.Fprintf(stderr, "progress %g/%g %s\n", p.Progress, p.Total, p.Message)
		} else {
			fmt.Fprintf(stderr, "progress %g %s\n", p.Progress, p.Message)
		}
	}
	res, err := callOnce(ctx, target, rest[0], rest[1:], cfg, progress)
	if err != nil {
		fmt.Fprintf(stderr, "call: %v\n", err)
		return 1
	}
	if err := printResult(stdout, res); err != nil {
		fmt.Fprintf(stderr, "call: %v\n", err)
		return 1
	}
	if res.IsError {
		return 1
	}
	return 0
}

// callOnce connects, finds tool and calls it with words typed by its inputSchema.
func callOnce(ctx context.Context, target, tool string, words []string, cfg client.Config, progress func(client.Progress)) (*client.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*cfg.RequestTimeout+time.Second) // connect, list, call
	defer cancel()
	c, err := client.Connect(ctx, target, cfg)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	var schema json.RawMessage
	found := false
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		names = append(names, t.Name)
		if t.Name == tool {
			schema, found = t.InputSchema, true
		}
	}
	if !found {
		return nil, fmt.Errorf("the server lists no tool %q (it lists: %s)", tool, strings.Join(names, ", "))
	}
	arguments, err := callArgs(words, schema)
	if err != nil {
		return nil, err
	}
	return c.CallTool(ctx, tool, json.RawMessage(arguments), client.WithProgress(progress))
}

// printResult writes text blocks as text, other content blocks and structuredContent as JSON.
func printResult(w io.Writer, res *client.CallToolResult) error {
	var blocks []json.RawMessage
	if len(res.Content) > 0 {
		if err := json.Unmarshal(res.Content, &blocks); err != nil {
			return fmt.Errorf("result content: %w", err)
		}
	}
	for _, b := range blocks {
		var t struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(b, &t) == nil && t.Type == "text" && t.Text != nil {
			fmt.Fprintln(w, *t.Text)
			continue
		}
		fmt.Fprintln(w, string(compact(string(b))))
	}
	if len(res.StructuredContent) > 0 {
		fmt.Fprintln(w, string(compact(string(res.StructuredContent))))
	}
	return nil
}

// callArgs turns the key=value words of `fastmcp-bench call` into a tools/call arguments
// object. schema is the tool's inputSchema (nil when unknown): a property typed string keeps
// its value verbatim (so text=42 stays "42"), integer, number and boolean must parse as one,
// object and array must be JSON. Without a type, a value that is valid JSON is taken as JSON
// (n=3, on=true, xs=[1,2]) and anything else as a string. A key given twice is an error, so a
// typo cannot silently drop a value.
func callArgs(words []string, schema json.RawMessage) (json.RawMessage, error) {
	types, err := propertyTypes(schema)
	if err != nil {
		return nil, err
	}
	args := make(map[string]json.RawMessage, len(words))
	for _, w := range words {
		key, value, ok := strings.Cut(w, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("argument %q is not key=value", w)
		}
		if _, dup := args[key]; dup {
			return nil, fmt.Errorf("argument %q given twice", key)
		}
		v, err := argValue(types[key], value)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", key, err)
		}
		args[key] = v
	}
	return json.Marshal(args)
}

// argValue encodes one value for a property of JSON Schema type typ ("" when unknown).
func argValue(typ, value string) (json.RawMessage, error) {
	switch typ {
	case "string":
		return json.Marshal(value)
	case "integer":
		if _, err := strconv.ParseInt(value, 10, 64); err != nil {
			return nil, fmt.Errorf("%q is not an integer", value)
		}
		return json.RawMessage(value), nil
	case "number":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", value)
		}
		return json.Marshal(f)
	case "boolean":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean", value)
		}
		return json.Marshal(b)
	case "object", "array":
		if !json.Valid([]byte(value)) {
			return nil, fmt.Errorf("%q is not JSON (the property is an %s)", value, typ)
		}
		return compact(value), nil
	}
	if json.Valid([]byte(value)) {
		return compact(value), nil
	}
	return json.Marshal(value)
}

func compact(value string) json.RawMessage {
	var b bytes.Buffer
	_ = json.Compact(&b, []byte(value)) // value is valid JSON: checked by the callers
	return b.Bytes()
}

// propertyTypes maps each property of an object schema to its type, when that is one string
// (a list of types, or none, leaves the value's own JSON shape to decide).
func propertyTypes(schema json.RawMessage) (map[string]string, error) {
	if len(schema) == 0 {
		return nil, nil
	}
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("tool inputSchema: %w", err)
	}
	types := make(map[string]string, len(s.Properties))
	for name, p := range s.Properties {
		var t string
		if json.Unmarshal(p.Type, &t) == nil {
			types[name] = t
		}
	}
	return types, nil
}
