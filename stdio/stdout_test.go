package stdio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// childEnv makes the test binary act as a stdio server (see runChild).
const childEnv = "FASTMCP_STDIO_TEST_CHILD"

// runChild serves the test tools over the process's real standard input and output when
// the test binary was started as a child by TestSubprocess, and reports whether it did.
// Its tool "stdout" writes to standard output the ways a careless handler would.
func runChild() bool {
	if os.Getenv(childEnv) != "1" {
		return false
	}
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "child", Version: "1.0.0"}, nil)
	if err != nil {
		panic(err)
	}
	fastmcp.AddTool(s, fastmcp.Tool{Name: "stdout"}, func(_ context.Context, _ *fastmcp.Request, in textArgs) (fastmcp.ToolResult, error) {
		fmt.Println("noise from fmt.Println")                      // os.Stdout, the variable
		_, _ = os.NewFile(1, "fd1").WriteString("noise on fd 1\n") // the descriptor itself
		return fastmcp.ToolResult{Text: in.Text}, nil
	})
	if err := Serve(context.Background(), s, Config{}); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	fmt.Println("after Serve") // standard output is restored
	os.Exit(0)
	return true
}

// TestSubprocess runs the test binary as a stdio server with the process's own standard
// input and output, over OS pipes, the way an MCP client starts a server: a handler's
// writes to standard output land on standard error, and standard output carries protocol
// lines only, 7-bit clean, until Serve returns and restores it.
func TestSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	if runtime.GOOS == "windows" {
		t.Skip("only the os.Stdout variable is redirected on Windows")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	_, err = io.WriteString(stdin, "\ufeff"+call("1", "stdout", `{"text":"h\u00e9llo \u2028 \ud83d\ude00"}`)+"\r\n"+
		call(`"two"`, "stdout", `{"text":"😀"}`)+"\n")
	require.NoError(t, err)
	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait(), "stderr: %s", stderr.String())

	out := stdout.String()
	require.True(t, strings.HasSuffix(out, "after Serve\n"), "stdout: %q", out)
	got := lines(t, []byte(strings.TrimSuffix(out, "after Serve\n")))
	require.Len(t, got, 2, "stdout: %q", out)
	texts := map[string]string{}
	for _, l := range got {
		m := decodeLine(t, l)
		texts[string(m.ID)] = m.text(t)
	}
	require.Equal(t, map[string]string{"1": "héllo \u2028 😀", `"two"`: "😀"}, texts)
	require.Equal(t, 2, strings.Count(stderr.String(), "noise from fmt.Println\n"), "stderr: %s", stderr.String())
	require.Equal(t, 2, strings.Count(stderr.String(), "noise on fd 1\n"), "stderr: %s", stderr.String())
}
