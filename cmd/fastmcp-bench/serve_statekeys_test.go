package main

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// b64Key is the key file line of a key of n bytes b.
func b64Key(b byte, n int) string {
	return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, n))
}

func TestParseStateKeys(t *testing.T) {
	k1, k2 := b64Key(1, 32), b64Key(2, 48)
	tests := []struct {
		name, file string
		want       [][]byte
		err        string
	}{
		{"one", k1 + "\n", [][]byte{bytes.Repeat([]byte{1}, 32)}, ""},
		{"no final newline, CRLF, comments, blanks", "# rotated today\r\n\r\n  " + k2 + " \r\n" + k1,
			[][]byte{bytes.Repeat([]byte{2}, 48), bytes.Repeat([]byte{1}, 32)}, ""},
		{"empty", "", nil, "no key: put one base64 key per line"},
		{"comments only", "# none\n\n", nil, "no key: put one base64 key per line"},
		{"not base64", k1 + "\nnot a key!\n", nil, "line 2 is not standard base64 (openssl rand -base64 32 makes a key)"},
		{"url alphabet", strings.ReplaceAll(b64Key(0xfb, 33), "+", "-"), nil, "line 1 is not standard base64 (openssl rand -base64 32 makes a key)"},
		{"unpadded", strings.TrimRight(b64Key(1, 32), "="), nil, "line 1 is not standard base64 (openssl rand -base64 32 makes a key)"},
		{"short", b64Key(1, 31), nil, "line 1: a key of 31 bytes, at least 32 are needed"},
		{"repeated", k1 + "\n# again\n" + k1, nil, "line 3 repeats the key of line 1"},
		{"too many", manyKeys(fastmcp.MaxStateKeys + 1), nil, "line 9: more than 8 keys"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keys, err := parseStateKeys([]byte(tc.file))
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				assert.Nil(t, keys)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, keys)
		})
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(b64Key(byte(i+1), 32) + "\n")
	}
	return b.String()
}

func TestReadStateKeysTooLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	long := b64Key(1, 32) + "\n" + "#" + strings.Repeat("x", maxStateKeyFileBytes)
	require.NoError(t, os.WriteFile(path, []byte(long), 0o600))
	_, err := readStateKeys(path)
	assert.EqualError(t, err, "longer than 65536 bytes")
}

// FuzzParseStateKeys: any file parses to keys the core accepts, or to an error that never
// quotes the file (a key file's bytes are secret).
func FuzzParseStateKeys(f *testing.F) {
	f.Add([]byte(b64Key(1, 32) + "\n" + b64Key(2, 32)))
	f.Add([]byte("# c\r\n" + b64Key(3, 40) + "\r\n"))
	f.Add([]byte(b64Key(1, 32) + "\n" + b64Key(1, 32)))
	f.Add([]byte("QUFB\n"))
	f.Fuzz(func(t *testing.T, file []byte) {
		keys, err := parseStateKeys(file)
		if err != nil {
			for line := range bytes.SplitSeq(file, []byte{'\n'}) {
				if line = bytes.TrimSpace(line); len(line) >= 4 && bytes.Contains([]byte(err.Error()), line) {
					t.Fatalf("error %q quotes the file", err)
				}
			}
			return
		}
		s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "f", Version: "1"}, &fastmcp.Config{StateKeys: keys})
		if err != nil || s == nil {
			t.Fatalf("parsed keys the core refuses: %v", err)
		}
	})
}

// greetUser is the demo's greet_user call, first round (state "") or retry.
func greetUser(id, state string) string {
	params := `"name":"greet_user","arguments":{}`
	if state != "" {
		params += `,"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},"requestState":"` + state + `"`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + params +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}`
}

// sealGreet runs greet_user's first round on url and returns its requestState.
func sealGreet(t *testing.T, url string) string {
	t.Helper()
	code, body := post(t, url, "tools/call", "greet_user", greetUser("1", ""))
	require.Equal(t, http.StatusOK, code, body)
	_, rest, ok := strings.Cut(body, `"requestState":"`)
	require.True(t, ok, body)
	state, _, ok := strings.Cut(rest, `"`)
	require.True(t, ok, body)
	return state
}

// retryGreet retries greet_user with state on url and returns the reply.
func retryGreet(t *testing.T, url, state string) string {
	t.Helper()
	_, body := post(t, url, "tools/call", "greet_user", greetUser("2", state))
	return body
}

// waitLog waits until the server's stderr holds n occurrences of msg.
func waitLog(t *testing.T, s *server, msg string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(s.stderr.String(), msg) < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in stderr:\n%s", msg, s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, bounded by the deadline
	}
}

// TestStateKeyFile: two replicas started with the same --state-key-file open each other's
// requestState, and SIGHUP rotates the keys: the new key first still opens the old states,
// the old key removed refuses them; a bad file on reread keeps the keys in use.
func TestStateKeyFile(t *testing.T) {
	bin := build(t)
	ver := builtVersion(t, bin)
	dir := t.TempDir()
	path := filepath.Join(dir, "state-keys")
	oldKey, newKey := b64Key(0xa1, 32), b64Key(0xb2, 32)
	write := func(content string) { require.NoError(t, os.WriteFile(path, []byte(content), 0o600)) }
	write(b64Key(1, 16) + "\n")
	out, err := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--state-key-file", path).CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Equal(t, "serve: --state-key-file "+path+": line 1: a key of 16 bytes, at least 32 are needed\n", string(out), "a bad file: serve refuses to start")

	write("# the replicas' requestState keys\n" + oldKey + "\n")
	a := startServe(t, bin, "--addr", "127.0.0.1:0", "--state-key-file", path)
	b := startServe(t, bin, "--addr", "127.0.0.1:0", "--state-key-file", path)
	greeted := `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada!"}],` + serverInfo(ver) + `}}`
	refused := `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid or expired request state"}}`

	stateOld := sealGreet(t, a.url)
	assert.JSONEq(t, greeted, retryGreet(t, b.url, stateOld), "sealed by A, opened by B")

	// Step 2 of a rotation, on A only: the new key seals, the old still opens.
	write(newKey + "\n" + oldKey + "\n")
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, a, "state keys reloaded", 1)
	assert.JSONEq(t, greeted, retryGreet(t, a.url, stateOld))
	stateNew := sealGreet(t, a.url)
	assert.JSONEq(t, refused, retryGreet(t, b.url, stateNew), "B does not hold the new key yet")

	// A bad file on reread: logged, the keys in use stay.
	write(oldKey + "\nnot base64\n")
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, a, "state keys not reloaded: the old keys stay", 1)
	assert.Contains(t, a.stderr.String(), "line 2 is not standard base64")
	assert.JSONEq(t, greeted, retryGreet(t, a.url, stateNew))

	// The old key removed: its states are refused.
	write(newKey + "\n")
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, a, "state keys reloaded", 2)
	assert.JSONEq(t, refused, retryGreet(t, a.url, stateOld))
	assert.JSONEq(t, greeted, retryGreet(t, a.url, stateNew))

	assert.Equal(t, 0, a.stop(t, syscall.SIGTERM))
	assert.Equal(t, 0, b.stop(t, syscall.SIGTERM))
	assert.NotContains(t, a.stderr.String()+b.stderr.String(), oldKey, "keys never reach the log")
}
