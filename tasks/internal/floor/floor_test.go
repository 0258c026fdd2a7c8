package floor

import (
	"context"
	"errors"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpen: the three statements name one scratch table, in the dialect's spelling; the
// insert passes id and body as its parameters. (Each store's TestFloor runs them on its
// database.)
func TestOpen(t *testing.T) {
	var queries []string
	var args [][]any
	exec := func(_ context.Context, query string, a ...any) error {
		queries, args = append(queries, query), append(args, a)
		return nil
	}
	insert, drop, err := Open(t.Context(), exec, Dialect{Text: "text", Blob: "bytea", Params: "$1, $2"})
	require.NoError(t, err)
	require.NoError(t, insert(t.Context(), "a", []byte(`{}`)))
	require.NoError(t, drop(t.Context()))

	require.Len(t, queries, 3)
	create := regexp.MustCompile(`^CREATE TABLE (fastmcp_floor_[0-9a-f]{12}) \(id text PRIMARY KEY, body bytea\)$`)
	table := create.FindStringSubmatch(queries[0])
	require.NotNil(t, table, queries[0])
	assert.Equal(t, "INSERT INTO "+table[1]+" (id, body) VALUES ($1, $2)", queries[1])
	assert.Equal(t, []any{"a", []byte(`{}`)}, args[1])
	assert.Equal(t, "DROP TABLE "+table[1], queries[2])

	_, _, err = Open(t.Context(), exec, Dialect{Text: "text", Blob: "bytea", Params: "$1, $2"})
	require.NoError(t, err)
	other := create.FindStringSubmatch(queries[3])
	require.NotNil(t, other, queries[3])
	assert.NotEqual(t, table[1], other[1], "each floor has its own table")
}

// A table that cannot be created is an error, and nothing to insert into.
func TestOpenFails(t *testing.T) {
	refused := errors.New("refused")
	insert, drop, err := Open(t.Context(), func(context.Context, string, ...any) error { return refused }, Dialect{})
	require.ErrorIs(t, err, refused)
	assert.Nil(t, insert)
	assert.Nil(t, drop)
}
