package wirevector

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// elicitAnswer is an ElicitResult.
type elicitAnswer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
}

const (
	confirmSchema = `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`
	nameSchema    = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	capitalParams = `{"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":20}`
)

// mrtrFixture serves multi round-trip requests on tools, a prompt and a resource.
func mrtrFixture() *Fixture {
	var confirmRuns atomic.Int64
	return &Fixture{Info: vectorInfo, Register: func(s *fastmcp.Server) {
		s.AddRawTool(fastmcp.Tool{Name: "confirm", Description: "Asks for confirmation (form elicitation)",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string"}}}`)},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				confirmRuns.Add(1)
				var a elicitAnswer
				ok, err := r.InputResponse("confirm", &a)
				switch {
				case err != nil:
					return fastmcp.ToolResult{}, err
				case !ok:
					return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"confirm": fastmcp.ElicitForm("Deploy to prod?", json.RawMessage(confirmSchema)),
					}}
				case a.Action == "accept":
					return text(fmt.Sprintf("deployed: %v", a.Content["ok"]))
				}
				return text("not deployed: " + a.Action)
			})
		s.AddRawTool(fastmcp.Tool{Name: "confirm_runs", Description: "How often confirm's handler ran", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return text(strconv.FormatInt(confirmRuns.Load(), 10))
			})
		s.AddRawTool(fastmcp.Tool{Name: "login", Description: "Asks the user to visit a URL", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				var a elicitAnswer
				if ok, err := r.InputResponse("login", &a); err != nil || !ok {
					return fastmcp.ToolResult{}, cmpOr(err, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"login": fastmcp.ElicitURL("Sign in to continue", "https://example.com/login"),
					}})
				}
				return text("login: " + a.Action)
			})
		s.AddRawTool(fastmcp.Tool{Name: "sample", Description: "Asks the client's model", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				var a struct {
					Content struct{ Text string } `json:"content"`
				}
				if ok, err := r.InputResponse("capital", &a); err != nil || !ok {
					return fastmcp.ToolResult{}, cmpOr(err, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"capital": fastmcp.Sample(json.RawMessage(capitalParams)),
					}})
				}
				return text("model said: " + a.Content.Text)
			})
		s.AddRawTool(fastmcp.Tool{Name: "sample_tools", Description: "Asks the client's model, with tools", InputSchema: objectSchema},
			func(context.Context, *fastmcp.Request, json.RawMessage) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
					"plan": fastmcp.Sample(json.RawMessage(`{"messages":[],"maxTokens":5,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)),
				}}
			})
		s.AddRawTool(fastmcp.Tool{Name: "roots", Description: "Asks for the client's roots", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				var a struct{ Roots []json.RawMessage }
				if ok, err := r.InputResponse("roots", &a); err != nil || !ok {
					return fastmcp.ToolResult{}, cmpOr(err, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"roots": fastmcp.ListRoots(),
					}})
				}
				return text(fmt.Sprintf("%d roots", len(a.Roots)))
			})
		s.AddRawTool(fastmcp.Tool{Name: "multi", Description: "Asks three things; keeps partial answers", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				have := map[string]string{}
				if st := r.State(); st != nil {
					if err := json.Unmarshal(st, &have); err != nil {
						return fastmcp.ToolResult{}, err
					}
				}
				var user elicitAnswer
				if ok, err := r.InputResponse("user_name", &user); err != nil {
					return fastmcp.ToolResult{}, err
				} else if ok {
					have["user_name"], _ = user.Content["name"].(string)
				}
				var capital struct {
					Content struct{ Text string } `json:"content"`
				}
				if ok, err := r.InputResponse("capital", &capital); err != nil {
					return fastmcp.ToolResult{}, err
				} else if ok {
					have["capital"] = capital.Content.Text
				}
				var roots struct{ Roots []json.RawMessage }
				if ok, err := r.InputResponse("roots", &roots); err != nil {
					return fastmcp.ToolResult{}, err
				} else if ok {
					have["roots"] = strconv.Itoa(len(roots.Roots))
				}
				asks := map[string]fastmcp.InputRequest{
					"user_name": fastmcp.ElicitForm("Your name?", json.RawMessage(nameSchema)),
					"capital":   fastmcp.Sample(json.RawMessage(capitalParams)),
					"roots":     fastmcp.ListRoots(),
				}
				missing := map[string]fastmcp.InputRequest{}
				for k, req := range asks {
					if _, ok := have[k]; !ok {
						missing[k] = req
					}
				}
				if len(missing) > 0 {
					st, _ := json.Marshal(have)
					return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: missing, State: st}
				}
				return text(fmt.Sprintf("%s, %s, %s roots", have["user_name"], have["capital"], have["roots"]))
			})
		s.AddRawTool(fastmcp.Tool{Name: "steps", Description: "Three rounds: two questions, then done", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				n := 0
				if st := r.State(); len(st) == 1 {
					n = int(st[0])
				}
				if r.HasInputResponse(fmt.Sprintf("step%d", n+1)) {
					n++
				}
				if n < 2 {
					key := fmt.Sprintf("step%d", n+1)
					return fastmcp.ToolResult{}, &fastmcp.InputRequired{
						Requests: map[string]fastmcp.InputRequest{key: fastmcp.ElicitForm("Step "+strconv.Itoa(n+1)+"?", json.RawMessage(confirmSchema))},
						State:    []byte{byte(n)},
					}
				}
				return text("done after 2 steps")
			})
		s.AddRawTool(fastmcp.Tool{Name: "yield", Description: "Asks for an immediate retry (state only)", InputSchema: objectSchema},
			func(_ context.Context, r *fastmcp.Request, _ json.RawMessage) (fastmcp.ToolResult, error) {
				if string(r.State()) != "later" {
					return fastmcp.ToolResult{}, &fastmcp.InputRequired{State: []byte("later")}
				}
				return text("resumed")
			})
		s.AddPrompt(fastmcp.Prompt{Name: "context_prompt", Description: "Asks for context first",
			Arguments: []fastmcp.PromptArgument{{Name: "topic"}},
			Complete: func(context.Context, *fastmcp.Request, string, string, map[string]string) (fastmcp.Completion, error) {
				return fastmcp.Completion{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
					"x": fastmcp.ElicitForm("?", json.RawMessage(nameSchema)),
				}}
			}},
			func(_ context.Context, r *fastmcp.Request, _ map[string]string) (fastmcp.PromptResult, error) {
				var a elicitAnswer
				if ok, err := r.InputResponse("user_context", &a); err != nil || !ok {
					return fastmcp.PromptResult{}, cmpOr(err, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"user_context": fastmcp.ElicitForm("What context?", json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)),
					}})
				}
				return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{
					fastmcp.UserMessage(fastmcp.Text(fmt.Sprintf("Prompt with context: %v", a.Content["context"]))),
				}}, nil
			})
		s.AddResource(fastmcp.Resource{URI: "test://mrtr/secret", Name: "secret", MimeType: "text/plain"},
			func(_ context.Context, r *fastmcp.Request, _ string) ([]fastmcp.ResourceContents, error) {
				var a elicitAnswer
				if ok, err := r.InputResponse("password", &a); err != nil || !ok {
					return nil, cmpOr(err, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
						"password": fastmcp.ElicitForm("Password?", json.RawMessage(`{"type":"object","properties":{"password":{"type":"string"}},"required":["password"]}`)),
					}})
				}
				return []fastmcp.ResourceContents{{Text: "unlocked: " + a.Action}}, nil
			})
	}}
}

// cmpOr returns err when it is not nil, else ir.
func cmpOr(err error, ir *fastmcp.InputRequired) error {
	if err != nil {
		return err
	}
	return ir
}
