package memstore_test

import (
	"testing"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

func TestCountByStatus(t *testing.T) {
	storetest.RunCount(t, func(*testing.T) tasks.Store {
		clock := storetest.NewFakeClock()
		return storetest.Timed(memstore.New(memstore.Config{Now: clock.Now}), clock)
	})
}
