package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/client"
)

// elicitAnswer is what the elicitation check's client answers every elicitation/create with;
// test_elicitation echoes it in its result.
const elicitAnswer = `{"action":"accept","content":{"username":"cluster-check","email":"cluster-check@example.com"}}`

// checkElicitation calls test_elicitation --count times through the proxy with an
// initialize-era client that answers each elicitation/create with elicitAnswer. The answer
// is a POST of its own: through a round-robin proxy it reaches another replica than the one
// whose handler waits for it, and only a bus between them brings it there. Each call must
// complete, within --deadline, with a result that quotes the answer.
func checkElicitation(ctx context.Context, o *clusterOptions, w io.Writer) error {
	var asked atomic.Int64
	elicit := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		asked.Add(1)
		return json.RawMessage(elicitAnswer), nil
	}
	c, err := connectEra(ctx, o.proxy, o.deadline, client.EraLegacy, elicit)
	if err != nil {
		return err
	}
	defer c.Close()
	done := 0
	var failure error
	for i := range o.count {
		cctx, cancel := context.WithTimeout(ctx, o.deadline)
		res, err := c.CallTool(cctx, "test_elicitation", map[string]any{"message": fmt.Sprintf("cluster-check %d", i+1)})
		cancel()
		if failure = elicitationOutcome(res, err); failure != nil {
			failure = fmt.Errorf("call %d of %d: %w", i+1, o.count, failure)
			break
		}
		done++
	}
	fmt.Fprintf(w, "elicitation: %d of %d test_elicitation calls through the proxy completed with their answer (%d elicitation/create answered)\n",
		done, o.count, asked.Load())
	return failure
}

// elicitationOutcome says what is wrong with one test_elicitation call's outcome, nil when
// its result quotes the answer the client gave.
func elicitationOutcome(res *client.CallToolResult, err error) error {
	switch {
	case err != nil:
		return err
	case res.IsError:
		return fmt.Errorf("tool error: %s", res.Content)
	case !strings.Contains(string(res.Content), `action=accept`) || !strings.Contains(string(res.Content), `cluster-check@example.com`):
		return fmt.Errorf("the result does not quote the answer: %s", res.Content)
	}
	return nil
}
