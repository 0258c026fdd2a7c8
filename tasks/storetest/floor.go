package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// Floor opens a store's physical floor of Create, the Floor method of sqlitestore.Store and
// pgstore.Store: insert writes one plain row of body into a table of its own, in one
// statement and its commit; drop removes the table.
type Floor func(ctx context.Context) (insert func(ctx context.Context, id string, body []byte) error, drop func(ctx context.Context) error, err error)

// RunFloor checks a store's floor on its database: it inserts plain rows (a taken id is
// refused, as a primary key does) and drops its table.
func RunFloor(t *testing.T, floor Floor) {
	insert, drop, err := floor(t.Context())
	require.NoError(t, err)
	require.NoError(t, insert(t.Context(), "a", []byte(`{"x":1}`)))
	require.Error(t, insert(t.Context(), "a", nil), "the id is the primary key")
	require.NoError(t, drop(t.Context()))
	require.Error(t, insert(t.Context(), "b", nil), "the table is gone")
}
