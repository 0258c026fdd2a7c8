package tasks_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// FuzzMethodParams sends the extension's methods arbitrary params (the taskId, the
// inputResponses object, the listen filter's taskIds): every request gets one well-formed
// reply and the server never panics.
func FuzzMethodParams(f *testing.F) {
	g := newGate()
	g.open()
	h := newHarness(f, tasks.Options{Tools: testPolicies()}, testTools(g))
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask2",` + metaTasks + `}}`)
	for _, seed := range []struct{ method, params string }{
		{"tasks/get", `"taskId":"task-1"`},
		{"tasks/get", `"taskId":7`},
		{"tasks/update", `"taskId":"task-1","inputResponses":{"a":{"action":"accept","content":{"name":"x"}},"zz":{"ignored":true}}`},
		{"tasks/update", `"taskId":"task-1","inputResponses":{"a":[],"\u0062":{}}`},
		{"tasks/cancel", `"taskId":"task-1"`},
		{"subscriptions/listen", `"notifications":{"taskIds":["task-1",3]}`},
		{"subscriptions/listen", `"notifications":{"taskIds":{}}`},
	} {
		f.Add(seed.method, seed.params)
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		switch method {
		case "tasks/get", "tasks/update", "tasks/cancel", "subscriptions/listen":
		default:
			return
		}
		msg := `{"jsonrpc":"2.0","id":9,"method":"` + method + `","params":{` + params + `,` + metaTasks + `}}`
		if !json.Valid([]byte(msg)) {
			return
		}
		if method == "subscriptions/listen" {
			// The client is gone already: an accepted listen writes its acknowledgement and
			// ends without a reply; a refused one is an error reply.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			sink := newListenSink()
			got := h.srv.Dispatch(ctx, []byte(msg), sink)
			if got != nil && !json.Valid(got) {
				t.Fatalf("reply is not JSON: %s", got)
			}
			for _, m := range sink.messages() {
				if !json.Valid([]byte(m)) {
					t.Fatalf("notification is not JSON: %s", m)
				}
			}
			return
		}
		got := string(h.srv.Dispatch(context.Background(), []byte(msg), nil)) // not h.send: F.Helper is not for the fuzz function
		if !json.Valid([]byte(got)) || got == "" {
			t.Fatalf("reply is not JSON: %q", got)
		}
	})
}
