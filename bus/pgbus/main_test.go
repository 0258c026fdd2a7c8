package pgbus_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// dsnEnv names the DSN of the PostgreSQL server the tests use; scripts/with-postgres.sh
// starts a throwaway one and sets it.
const dsnEnv = "FASTMCP_TEST_POSTGRES"

func TestMain(m *testing.M) {
	present := goleak.IgnoreCurrent() // ants' default pool, linked through fastmcp
	code := m.Run()
	dropDatabases()
	if code == 0 {
		if err := goleak.Find(present); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// serverDSN returns the server's DSN; without one the test skips, or fails under CI=true.
func serverDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		msg := dsnEnv + " is not set: run these tests against a throwaway PostgreSQL with " +
			"scripts/with-postgres.sh go test ./bus/pgbus/"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dsn
}

var created []string

// database is one empty database of a test, which its buses share.
type database struct {
	t    testing.TB
	name string
	dsn  string
}

// newDatabase creates an empty database on the server.
func newDatabase(t testing.TB) *database {
	t.Helper()
	dsn := serverDSN(t)
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	d := &database{t: t, name: "fastmcp_bus_" + hex.EncodeToString(suffix)}
	admin(t, `CREATE DATABASE `+d.name)
	created = append(created, d.name)
	cfg, err := pgx.ParseConfig(dsn)
	require.NoError(t, err)
	cfg.Database = d.name
	d.dsn = cfg.ConnString()
	return d
}

// pool returns a new pool on d, closed when t ends: one per replica.
func (d *database) pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(serverDSN(t))
	require.NoError(t, err)
	cfg.ConnConfig.Database = d.name
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// outage refuses new connections to d and ends its open ones, until restore.
func (d *database) outage() (restore func()) {
	admin(d.t, `ALTER DATABASE `+d.name+` ALLOW_CONNECTIONS false`)
	admin(d.t, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '`+d.name+`' AND pid <> pg_backend_pid()`)
	return func() { admin(d.t, `ALTER DATABASE `+d.name+` ALLOW_CONNECTIONS true`) }
}

// admin runs sql on the server's own database.
func admin(t testing.TB, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, serverDSN(t))
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	require.NoError(t, err)
}

func dropDatabases() {
	if len(created) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, os.Getenv(dsnEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgbus tests: drop databases:", err)
		return
	}
	defer conn.Close(ctx)
	for _, name := range created {
		if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			fmt.Fprintln(os.Stderr, "pgbus tests: drop", name+":", err)
		}
	}
}
