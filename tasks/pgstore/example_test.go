package pgstore_test

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
)

// The application owns the pool and applies the schema once, by calling Migrate (at
// deploy, or at start); Open only checks it.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if err := pgstore.Migrate(ctx, pool); err != nil {
		log.Fatal(err)
	}
	store, err := pgstore.Open(ctx, pool)
	if err != nil {
		log.Fatal(err)
	}
	_ = store // a tasks.Store
}
