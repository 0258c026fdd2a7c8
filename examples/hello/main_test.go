package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
	)
}

// readme is the repository's README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	return string(b)
}

// block returns the body of the first fenced block of README.md that starts with
// "```"+lang+"\n"+prefix, from prefix on.
func block(t *testing.T, doc, lang, prefix string) string {
	t.Helper()
	open := "```" + lang + "\n" + prefix
	i := strings.Index(doc, open)
	require.GreaterOrEqual(t, i, 0, "README.md has no ```%s block starting with %q", lang, prefix)
	rest := doc[i+len(open)-len(prefix):]
	end := strings.Index(rest, "```")
	require.GreaterOrEqual(t, end, 0)
	return rest[:end]
}

// The README quotes this program verbatim.
func TestReadmeQuotesMain(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	assert.Equal(t, string(src), block(t, readme(t), "go", "// Command hello"),
		"README.md must quote examples/hello/main.go verbatim")
}

// curlRequest is what the README's curl command sends.
type curlRequest struct {
	url     string
	headers [][2]string
	body    string
}

// parseCurl reads a `curl URL -sS -H 'K: V'... -d 'BODY'` command: single-quoted words and
// backslash-newline continuations, nothing else (other syntax fails the test).
func parseCurl(t *testing.T, cmd string) curlRequest {
	t.Helper()
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quoted:
			if c == '\'' {
				quoted = false
			} else {
				word.WriteByte(c)
			}
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(cmd) && cmd[i+1] == '\n':
			i++
		case c == ' ' || c == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\\' || c == '"' || c == '$' || c == '`':
			t.Fatalf("README curl command: %q at offset %d is shell syntax this test does not parse", c, i)
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	require.False(t, quoted, "README curl command: unterminated quote")
	if inWord {
		words = append(words, word.String())
	}
	require.NotEmpty(t, words)
	require.Equal(t, "curl", words[0])
	var r curlRequest
	for i := 1; i < len(words); i++ {
		switch w := words[i]; {
		case w == "-sS":
		case (w == "-H" || w == "-d") && i+1 < len(words):
			i++
			if w == "-d" {
				r.body = words[i]
				continue
			}
			k, v, ok := strings.Cut(words[i], ":")
			require.True(t, ok, "header %q", words[i])
			r.headers = append(r.headers, [2]string{k, strings.TrimSpace(v)})
		case strings.HasPrefix(w, "http://") && r.url == "":
			r.url = w
		default:
			t.Fatalf("README curl command: argument %q is not one this test models", w)
		}
	}
	require.NotEmpty(t, r.url)
	require.NotEmpty(t, r.body)
	return r
}

// send POSTs r to url the way curl does, without the header named skip.
func send(t *testing.T, url string, r curlRequest, skip string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(r.body))
	require.NoError(t, err)
	for _, h := range r.headers {
		if !strings.EqualFold(h[0], skip) {
			req.Header.Add(h[0], h[1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(out)
}

// The README's curl command, sent to this program, gets the answer the README shows; without
// any one of its headers it is refused; and, when curl is installed, the command itself
// prints that answer.
func TestReadmeCurl(t *testing.T) {
	doc := readme(t)
	cmd := block(t, doc, "sh", "curl ")
	want := strings.TrimSpace(block(t, doc, "json", `{"jsonrpc":"2.0","id":1,"result"`))
	r := parseCurl(t, cmd)

	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, "127.0.0.1:0", func(url string) { urls <- url }) }()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatalf("run: %v", err)
	}
	defer func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err, "run after cancel")
		case <-time.After(10 * time.Second):
			t.Error("run did not return within 10s of its context ending")
		}
	}()

	status, ctype, body := send(t, url, r, "")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "application/json", ctype)
	assert.Equal(t, want, body)

	for _, h := range r.headers {
		status, _, body := send(t, url, r, h[0])
		assert.GreaterOrEqual(t, status, 400, "without %s: %d %s", h[0], status, body)
	}

	t.Run("curl", func(t *testing.T) {
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skip("curl is not installed")
		}
		cctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		out, err := exec.CommandContext(cctx, "sh", "-c", strings.Replace(cmd, r.url, url, 1)).CombinedOutput()
		require.NoError(t, err, "curl: %s", out)
		assert.Equal(t, want, strings.TrimSpace(string(out)))
	})
}
