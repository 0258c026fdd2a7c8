package pgstore_test

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
// starts a throwaway one and sets it (`make test` runs the tests under it).
const dsnEnv = "FASTMCP_TEST_POSTGRES"

func TestMain(m *testing.M) {
	if helperProcess() {
		return
	}
	present := goleak.IgnoreCurrent() // ants' default pool, linked through tasks -> fastmcp
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

// serverDSN returns the server's DSN; without one the test skips, or fails under CI=true,
// where a skipped database test would pass unseen.
func serverDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		msg := dsnEnv + " is not set: run these tests against a throwaway PostgreSQL with " +
			"scripts/with-postgres.sh go test ./tasks/pgstore/ (or make test)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dsn
}

// created lists the databases this process made, dropped at the end.
var created []string

// newDatabase creates an empty database on the server and returns a pool on it, closed
// when t ends.
func newDatabase(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dsn := serverDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	name := "fastmcp_test_" + hex.EncodeToString(suffix)
	_, err = conn.Exec(ctx, `CREATE DATABASE `+name)
	require.NoError(t, err)
	created = append(created, name)
	cfg, err := pgxpool.ParseConfig(dsn)
	require.NoError(t, err)
	cfg.ConnConfig.Database = name
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

func dropDatabases() {
	if len(created) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, os.Getenv(dsnEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgstore tests: drop databases:", err)
		return
	}
	defer conn.Close(ctx)
	for _, name := range created {
		if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			fmt.Fprintln(os.Stderr, "pgstore tests: drop", name+":", err)
		}
	}
}
