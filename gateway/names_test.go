package gateway

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamesReversible(t *testing.T) {
	n := newNamer("docs", false)
	for _, own := range []string{"forecast", "_x", "a__b", "__", "tool-1.v2"} {
		backend, back, ok := SplitName(n.Name(own))
		require.True(t, ok, own)
		assert.Equal(t, "docs", backend)
		assert.Equal(t, own, back)
	}
	for _, own := range []string{"file:///a.txt", "mem://items/{id}", "a+b:c", "x"} {
		backend, back, ok := SplitURI(n.URI(own))
		require.True(t, ok, own)
		assert.Equal(t, "docs", backend)
		assert.Equal(t, own, back)
	}
	assert.Equal(t, "docs+file:///a.txt", n.URI("file:///a.txt"))
	assert.Equal(t, "docs__forecast", n.Name("forecast"))
	solo := newNamer("docs", true)
	assert.Equal(t, "forecast", solo.Name("forecast"))
	assert.Equal(t, "file:///a.txt", solo.URI("file:///a.txt"))
	_, _, ok := SplitName("plain")
	assert.False(t, ok)
	_, _, ok = SplitURI("https://x")
	assert.False(t, ok)
}

// FuzzNamesReversible: any own name or URI of any valid backend name comes back exactly.
func FuzzNamesReversible(f *testing.F) {
	f.Add("weather", "forecast")
	f.Add("a-1", "__x__")
	f.Fuzz(func(t *testing.T, backend, own string) {
		if !backendName.MatchString(backend) {
			return
		}
		n := newNamer(backend, false)
		b, o, ok := SplitName(n.Name(own))
		if !ok || b != backend || o != own {
			t.Fatalf("name %q of %q came back as %q, %q, %v", own, backend, b, o, ok)
		}
		b, o, ok = SplitURI(n.URI(own))
		if !ok || b != backend || o != own {
			t.Fatalf("URI %q of %q came back as %q, %q, %v", own, backend, b, o, ok)
		}
	})
}

func TestParseBackend(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Backend
		err  string
	}{
		{in: "web=https://h/mcp", want: Backend{Name: "web", URL: "https://h/mcp"}},
		{in: "local=stdio:srv --a b", want: Backend{Name: "local", Command: "srv", Args: []string{"--a", "b"}}},
		{in: "nope", err: `gateway: invalid configuration: backend "nope": want NAME=URL or NAME=stdio:COMMAND ARGS`},
		{in: "a_b=http://h", err: `gateway: invalid configuration: backend name "a_b": want a lowercase letter, then up to 31 lowercase letters, digits and '-'`},
		{in: "x=stdio:", err: `gateway: invalid configuration: backend "x": stdio: without a command`},
		{in: "x=ftp://h", err: `gateway: invalid configuration: backend "x": "ftp://h" is neither an http(s) URL nor stdio:COMMAND`},
	} {
		got, err := ParseBackend(tc.in)
		if tc.err != "" {
			assert.EqualError(t, err, tc.err, tc.in)
			assert.ErrorIs(t, err, ErrInvalidConfig)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got)
	}
}
