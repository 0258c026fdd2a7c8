package memstore_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) tasks.Store {
		clock := storetest.NewFakeClock()
		return storetest.Timed(memstore.New(memstore.Config{Now: clock.Now}), clock)
	})
}
