// Package pgtest gives database tests a throwaway database each on the PostgreSQL server
// that scripts/with-postgres.sh starts and names in $FASTMCP_TEST_POSTGRES, and drops them
// when the test binary ends. For the tests of the packages that talk to PostgreSQL only.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// DSNEnv names the DSN of the server the tests use.
const DSNEnv = "FASTMCP_TEST_POSTGRES"

// ServerDSN returns the server's DSN. Without one the test skips, or fails under CI=true,
// where a skipped database test would pass unseen; the message names how to run pkg's tests.
func ServerDSN(t testing.TB, pkg string) string {
	t.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		msg := DSNEnv + " is not set: run these tests against a throwaway PostgreSQL with " +
			"scripts/with-postgres.sh go test ./" + pkg + "/ (or make test)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dsn
}

var (
	mu      sync.Mutex
	created []string // the databases this process made, dropped by DropDatabases
)

// NewDatabase creates an empty database on the server and returns its name and a DSN naming
// it (the server's DSN with its database replaced, in URL or key=value form alike).
func NewDatabase(t testing.TB, pkg string) (name, dsn string) {
	t.Helper()
	server := ServerDSN(t, pkg)
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	name = "fastmcp_test_" + hex.EncodeToString(suffix)
	Admin(t, server, `CREATE DATABASE `+name)
	mu.Lock()
	created = append(created, name)
	mu.Unlock()
	// ConnString would give back the server's DSN unchanged: append the database, which a
	// later dbname key overrides in key=value form and a path sets in URL form.
	if u, err := url.Parse(server); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		return name, u.String()
	}
	return name, server + " dbname=" + name
}

// Pool opens a pool on dsn, closed when t ends.
func Pool(t testing.TB, dsn string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// Admin runs sql on the database of dsn (the server's own, for CREATE DATABASE and the like).
func Admin(t testing.TB, dsn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	require.NoError(t, err)
}

// DropDatabases drops every database NewDatabase made in this process; TestMain calls it
// after the tests ran. Failures are printed, not fatal: the server is a throwaway.
func DropDatabases() {
	mu.Lock()
	names := created
	created = nil
	mu.Unlock()
	if len(names) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, os.Getenv(DSNEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: drop databases:", err)
		return
	}
	defer conn.Close(ctx)
	for _, name := range names {
		if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: drop", name+":", err)
		}
	}
}
