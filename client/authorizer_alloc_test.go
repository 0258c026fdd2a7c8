package client

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// staticAuthorizer sends one cached credential, as an OAuth provider does with a valid token.
type staticAuthorizer struct{ cred AuthCredentials }

func (a staticAuthorizer) Authorize(context.Context, AuthRequest) (AuthCredentials, error) {
	return a.cred, nil
}

func (staticAuthorizer) Challenge(context.Context, *AuthChallenge) error { return nil }

// TestCallToolAllocBudgetWithAuthorizer: the seam costs no allocation per call when the
// Authorizer has its credential ready: the budget is CallTool's own.
func TestCallToolAllocBudgetWithAuthorizer(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	a := staticAuthorizer{AuthCredentials{Authorization: "Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"}}
	c := connect(t, newQuietServer(t), Config{Authorizer: a})
	ctx := context.Background()
	args := []byte(`{"text":"x"}`)
	_, err := c.CallTool(ctx, "echo", args)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.CallTool(ctx, "echo", args); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("CallTool with an Authorizer: %.1f allocs per call", allocs)
	assert.LessOrEqual(t, allocs, float64(callToolAllocBudget))
}

// BenchmarkCallToolAuthorizer: the client's own cost with and without a credential header,
// against a server that allocates nothing (the seam's cost is the difference).
func BenchmarkCallToolAuthorizer(b *testing.B) {
	for _, bc := range []struct {
		name string
		a    Authorizer
	}{
		{"auth=none", nil},
		{"auth=static", staticAuthorizer{AuthCredentials{Authorization: "Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := connect(b, newQuietServer(b), Config{Authorizer: bc.a})
			ctx := context.Background()
			args := []byte(`{"text":"x"}`)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CallTool(ctx, "echo", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
