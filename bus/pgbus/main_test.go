package pgbus_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"

	"github.com/fastmcp-go/fastmcp/internal/pgtest"
)

func TestMain(m *testing.M) {
	present := goleak.IgnoreCurrent() // ants' default pool, linked through fastmcp
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

// serverDSN returns the server's DSN (scripts/with-postgres.sh starts one).
func serverDSN(t testing.TB) string { return pgtest.ServerDSN(t, "bus/pgbus") }

// database is one empty database of a test, which its buses share.
type database struct {
	t    testing.TB
	name string
	dsn  string
}

// newDatabase creates an empty database on the server.
func newDatabase(t testing.TB) *database {
	t.Helper()
	name, dsn := pgtest.NewDatabase(t, "bus/pgbus")
	return &database{t: t, name: name, dsn: dsn}
}

// pool returns a new pool on d, closed when t ends: one per replica.
func (d *database) pool(t testing.TB) *pgxpool.Pool { return pgtest.Pool(t, d.dsn) }

// outage refuses new connections to d and ends its open ones, until restore.
func (d *database) outage() (restore func()) {
	admin(d.t, `ALTER DATABASE `+d.name+` ALLOW_CONNECTIONS false`)
	admin(d.t, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '`+d.name+`' AND pid <> pg_backend_pid()`)
	return func() { admin(d.t, `ALTER DATABASE `+d.name+` ALLOW_CONNECTIONS true`) }
}

// admin runs sql on the server's own database.
func admin(t testing.TB, sql string) {
	t.Helper()
	pgtest.Admin(t, serverDSN(t), sql)
}
