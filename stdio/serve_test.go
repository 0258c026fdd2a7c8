package stdio

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSmoke(t *testing.T) {
	s, _ := newTestServer(t)
	out := serveAll(t, s, call("1", "echo", `{"text":"hi"}`)+"\n", Config{})
	require.Len(t, out, 1)
	t.Log(out[0])
	_ = context.Background()
}
