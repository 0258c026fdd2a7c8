package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
)

// notifications/tasks pass through: a caller's listen stream naming its task id gets the
// backend's notifications under that id until the task completes; an id the Gateway did
// not give this caller is left out of the acknowledgement.
func TestTaskNotificationsListened(t *testing.T) {
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "tk", URL: tasksBackend(t)}}})
	c := taskCaller(t, gw)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, task, err := c.CallToolTask(ctx, "slow_compute", map[string]any{"seconds": 1, "label": "listen"})
	require.NoError(t, err)
	require.NotNil(t, task)
	sub, err := c.Listen(ctx, client.ListenFilter{TaskIDs: []string{task.ID, "forged.tk.x"}})
	require.NoError(t, err)
	defer sub.Close()
	require.Equal(t, []string{task.ID}, sub.Acknowledged.TaskIDs)

	for n := range sub.C {
		require.Equal(t, "notifications/tasks", n.Method)
		var got struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
			Result struct {
				Content json.RawMessage `json:"content"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(n.Params, &got))
		require.Equal(t, task.ID, got.TaskID, "the Gateway's id, never the backend's")
		if got.Status == "completed" {
			require.Contains(t, string(got.Result.Content), `"type":"text"`)
			return
		}
	}
	t.Fatalf("the stream ended before the task completed: %v", sub.Dropped())
}

// The listen request's taskIds on the wire: an undeclared request is -32021 (HTTP 400), as
// the extension says, and more than MaxListenTaskIDs is -32602.
func TestTaskListenRefusals(t *testing.T) {
	_, gw := startGateway(t, Config{Backends: []Backend{{Name: "tk", URL: tasksBackend(t)}}})
	status, body := post(t, gw, "subscriptions/listen", "", `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"taskIds":["x"]},`+wireMeta+`}}`)
	require.Equal(t, 400, status)
	require.Equal(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, body)

	const declaring = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	many := `"x"` + strings.Repeat(`,"x"`, MaxListenTaskIDs)
	_, body = post(t, gw, "subscriptions/listen", "", `{"jsonrpc":"2.0","id":8,"method":"subscriptions/listen","params":{"notifications":{"taskIds":[`+many+`]},`+declaring+`}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params: notifications.taskIds lists more than 100 task ids"}}`, body)
	_, body = post(t, gw, "subscriptions/listen", "", `{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"notifications":{"taskIds":"x"},`+declaring+`}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params: notifications.taskIds must be an array of task ids"}}`, body)
}
