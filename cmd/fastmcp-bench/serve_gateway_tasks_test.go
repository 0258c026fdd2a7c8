package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The gateway's task id keys derive from the state keys: the same file gives every replica
// the same keys, none of them a state key itself.
func TestTaskIDKeys(t *testing.T) {
	assert.Nil(t, taskIDKeys(nil))
	state := [][]byte{bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)}
	a, b := taskIDKeys(state), taskIDKeys(state)
	require.Len(t, a, 2)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a[0], a[1])
	assert.NotEqual(t, state[0], a[0])
}

// testServeGatewayTasks: two gateway replicas (serve --backend, one --state-key-file) in
// front of a backend with tasks (serve --fixtures conformance): a task created through one
// is read through the other, and SIGHUP rotates the task id keys with the state keys.
func testServeGatewayTasks(t *testing.T, bin string) {
	keys := filepath.Join(t.TempDir(), "keys")
	oldKey, newKey := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{9}, 32)), base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	write := func(content string) { require.NoError(t, os.WriteFile(keys, []byte(content), 0o600)) }
	write(oldKey + "\n")
	backend := startServe(t, bin, "--addr", "127.0.0.1:0", "--fixtures", "conformance", "--tasks-store", "memory")
	a := startServe(t, bin, "--addr", "127.0.0.1:0", "--backend", "b="+backend.url, "--state-key-file", keys)
	b := startServe(t, bin, "--addr", "127.0.0.1:0", "--backend", "b="+backend.url, "--state-key-file", keys)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	create := func(s *server) string {
		t.Helper()
		code, body := post(t, s.url, "tools/call", "slow_compute", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":0},`+meta+`}}`)
		require.Equal(t, 200, code, body)
		var created struct{ Result struct{ TaskID string } }
		require.NoError(t, json.Unmarshal([]byte(body), &created), body)
		require.NotEmpty(t, created.Result.TaskID, body)
		return created.Result.TaskID
	}
	served := func(s *server, id string) bool {
		t.Helper()
		code, body := post(t, s.url, "tasks/get", id, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`",`+meta+`}}`)
		require.Equal(t, 200, code, body)
		if !strings.Contains(body, `"error"`) {
			assert.Contains(t, body, `"taskId":"`+id+`"`)
			return true
		}
		assert.Equal(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: unknown task"}}`, body)
		return false
	}
	idOld := create(a)
	assert.True(t, served(b, idOld), "replica B serves the task replica A created")

	// A rotation on A: the new key signs, the old still verifies; B has only the old one.
	write(newKey + "\n" + oldKey + "\n")
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, a, "state keys reloaded", 1)
	idNew := create(a)
	assert.True(t, served(a, idOld))
	assert.False(t, served(b, idNew), "B does not hold the new key yet")
	// The old key removed: the ids it signed are refused.
	write(newKey + "\n")
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, a, "state keys reloaded", 2)
	assert.False(t, served(a, idOld))
	assert.True(t, served(a, idNew))
}
