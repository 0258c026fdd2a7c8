package sqlitestore

import (
	"context"
	"database/sql"
)

// wtx is a write transaction whose statements are prepared once per connection and kept:
// parsing the SQL again was a third of a Create.
type wtx struct {
	tx *sql.Tx
	s  *Store
}

func (w wtx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	st, err := w.s.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return w.tx.StmtContext(ctx, st), nil
}

// prepared returns the store's prepared statement of query, preparing it the first time.
func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.stmts.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	p, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	st, loaded := s.stmts.LoadOrStore(query, p)
	if loaded {
		_ = p.Close()
	}
	return st.(*sql.Stmt), nil
}

func (w wtx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := w.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (w wtx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := w.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext returns the row, or a row whose Scan reports the preparation's error.
func (w wtx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := w.stmt(ctx, query)
	if err != nil {
		// A Row made of an error: QueryRowContext on a closed statement would lose it.
		return w.tx.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}
