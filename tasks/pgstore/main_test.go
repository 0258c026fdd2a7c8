package pgstore_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"

	"github.com/fastmcp-go/fastmcp/internal/pgtest"
)

func TestMain(m *testing.M) {
	if helperProcess() {
		return
	}
	present := goleak.IgnoreCurrent() // ants' default pool, linked through tasks -> fastmcp
	code := m.Run()
	pgtest.DropDatabases()
	if code == 0 {
		if err := goleak.Find(present); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// serverDSN returns the server's DSN (scripts/with-postgres.sh starts one; `make test` runs
// the tests under it).
func serverDSN(t testing.TB) string { return pgtest.ServerDSN(t, "tasks/pgstore") }

// newDatabase creates an empty database on the server and returns a pool on it, closed
// when t ends.
func newDatabase(t testing.TB) *pgxpool.Pool {
	t.Helper()
	_, dsn := pgtest.NewDatabase(t, "tasks/pgstore")
	return pgtest.Pool(t, dsn)
}
