//go:build !race

package tasks_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// TestAllocsTasksBudget pins the allocations of the extension's hot paths over the memory
// store: a tasks/get poll of a completed task 12 (the request, the store's copy of the task,
// the result bytes), a tools/call that becomes a task 15.
func TestAllocsTasksBudget(t *testing.T) {
	h, stop := benchHarness(t, memstore.New(memstore.Config{}))
	defer stop()
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		msg    []byte
		budget float64
	}{{"tasks/get", benchGet, 12}, {"create", benchCreate, 15}} {
		allocs := testing.AllocsPerRun(100, func() { h.srv.Dispatch(ctx, c.msg, nil) })
		assert.LessOrEqual(t, allocs, c.budget, c.name)
		t.Logf("%s: %v allocs", c.name, allocs)
	}
}
