package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
	"github.com/fastmcp-go/fastmcp/tasks/storetest"
)

func TestMain(m *testing.M) {
	if helperProcess() {
		return
	}
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) tasks.Store {
		clock := storetest.NewFakeClock()
		s, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "tasks.db"), sqlitestore.Config{Now: clock.Now})
		require.NoError(t, err)
		return storetest.Timed(s, clock)
	})
}
