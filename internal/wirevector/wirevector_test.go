package wirevector

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRejects(t *testing.T) {
	for name, text := range map[string]string{
		"no comment":       "-- setup --\necho\n-- request --\n{}\n-- no reply --\n",
		"no setup":         "c\n-- request --\n{}\n-- no reply --\n",
		"no reply section": "c\n-- setup --\necho\n-- request --\n{}\n",
		"two replies":      "c\n-- setup --\necho\n-- request --\n{}\n-- no reply --\n-- no reply --\n",
		"reply no def":     "c\n-- setup --\necho\n-- request --\n{}\n-- reply --\n{}\n",
		"two lines":        "c\n-- setup --\necho\n-- request --\n{}\n{}\n-- no reply --\n",
		"unknown section":  "c\n-- setup --\necho\n-- answer --\n{}\n",
		"defs per line":    "c\n-- setup --\necho\n-- request --\n{}\n-- no reply --\n-- notifications A B --\n{}\n{}\n{}\n",
	} {
		_, err := Parse(name, []byte(text))
		require.Error(t, err, name)
	}
}

func TestMatchExpected(t *testing.T) {
	vars := map[string]string{}
	require.True(t, matchExpected(`{"s":"{{state}}","n":1}`, []byte(`{"s":"AbC-_9","n":1}`), vars))
	require.Equal(t, "AbC-_9", vars["state"])
	require.True(t, matchExpected(`{"s":"{{state}}"}`, []byte(`{"s":"AbC-_9"}`), vars))
	require.False(t, matchExpected(`{"s":"{{state}}"}`, []byte(`{"s":"AbC-_8"}`), vars))
	require.False(t, matchExpected(`{"a":"{{x}}","b":"{{x}}"}`, []byte(`{"a":"1","b":"2"}`), vars))
	require.False(t, matchExpected(`{"n":1}`, []byte(`{"n":1} `), vars))
	require.Equal(t, `{"s":"AbC-_9"}`, string(substitute(t, "t", `{"s":"{{state}}"}`, vars)))
	require.NotEqual(t, vars["state"], tamper(vars["state"]))
	require.Len(t, tamper(vars["state"]), len(vars["state"]))
}

// A replacement stands in for the vector's reply, is matched with placeholders, and the
// other steps are unchanged.
func TestRunReplace(t *testing.T) {
	v, err := Parse("r.txtar", []byte("c\n-- setup --\nempty\n-- request --\n{\"a\":1}\n-- no reply --\n"+
		"-- request --\n{\"b\":2}\n-- reply InvalidParamsError --\n{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32602,\"message\":\"core\"}}\n"))
	require.NoError(t, err)
	replies := map[string]string{
		`{"a":1}`: `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"transport"}}`,
		`{"b":2}`: `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"core"}}`,
	}
	RunSteps(t, v, func(_ Step, req []byte) ([]byte, [][]byte) { return []byte(replies[string(req)]), nil }, Options{
		Replace: map[int]Replacement{4: {
			Reply:    `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"{{m}}"}}`,
			ReplyDef: "HeaderMismatchError",
			Why:      "test",
		}},
	})
}
