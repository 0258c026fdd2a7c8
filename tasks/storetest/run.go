package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// A contract case gets a fresh, empty store and its clock.
type contractCase struct {
	name string
	run  func(t *testing.T, s tasks.Store, clk Clock)
}

// Run runs the contract against the stores open returns, one fresh and empty store per case
// (open may register cleanups on the t it is given; Run closes the store). The store must
// also be a [Clock]: wrap it with [Timed].
func Run(t *testing.T, open func(t *testing.T) tasks.Store) {
	groups := [][]contractCase{crudCases, expiryCases, capacityCases, leaseCases, raceCases}
	for _, group := range groups {
		for _, c := range group {
			t.Run(c.name, func(t *testing.T) {
				s := open(t)
				clk, ok := s.(Clock)
				require.True(t, ok, "open must return a store with its clock: storetest.Timed(store, clock)")
				t.Cleanup(func() { require.NoError(t, s.Close()) })
				c.run(t, s, clk)
			})
		}
	}
}

// ctx is the context of the suite's calls: a test's own, cancelled when it ends.
func ctx(t *testing.T) context.Context { return t.Context() }
