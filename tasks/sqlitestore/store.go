package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
	"github.com/fastmcp-go/fastmcp/tasks"
)

// DefaultBusyTimeout is how long a write waits for another process's write lock.
const DefaultBusyTimeout = 5 * time.Second

// Config configures a Store; the zero value is the default.
type Config struct {
	// Now is the store's clock; nil means time.Now.
	Now func() time.Time
	// BusyTimeout bounds a write's wait for the file's write lock held by another process
	// (default DefaultBusyTimeout; negative is invalid). Past it the call fails with the
	// driver's error "database is locked (5) (SQLITE_BUSY)".
	BusyTimeout time.Duration
	// Synchronous is SQLite's synchronous setting for commits: "FULL" (the default: a
	// commit is on disk before it returns) or "NORMAL" (a commit survives the process being
	// killed, not a power loss).
	Synchronous string
}

// ErrInvalidConfig wraps every Config error of Open.
var ErrInvalidConfig = errors.New("sqlitestore: invalid config")

// ErrReadOnly is wrapped by Open's error for a database file this process cannot write.
var ErrReadOnly = errors.New("read-only")

// Store is a tasks.Store in one SQLite file. It is safe for concurrent use, and other
// processes may open the same file.
type Store struct {
	db  *sql.DB
	now func() time.Time
	// writing queues this process's writes (a one-slot semaphore a caller can stop waiting
	// for), so they wait here rather than in SQLite's busy handler, which sleeps.
	writing chan struct{}
	// stmts holds the prepared write statements by their SQL.
	stmts sync.Map
}

var _ tasks.Store = (*Store)(nil)

// Open opens (creating it if needed) the database file at path and its schema.
func Open(ctx context.Context, path string, cfg Config) (*Store, error) {
	if err := defaults.Resolve(&cfg.BusyTimeout, DefaultBusyTimeout, "BusyTimeout", ErrInvalidConfig); err != nil {
		return nil, err
	}
	switch strings.ToUpper(cfg.Synchronous) {
	case "":
		cfg.Synchronous = "FULL"
	case "FULL", "NORMAL":
	default:
		return nil, fmt.Errorf("%w: Synchronous %q is neither FULL nor NORMAL", ErrInvalidConfig, cfg.Synchronous)
	}
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("%w: path %q is not a file path", ErrInvalidConfig, path)
	}
	if err := writable(path); err != nil {
		return nil, fmt.Errorf("sqlitestore: %s is %w: %w", path, ErrReadOnly, err)
	}
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(cfg.BusyTimeout.Milliseconds(), 10))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", strings.ToUpper(cfg.Synchronous))
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(4)
	s := &Store{db: db, now: cfg.Now, writing: make(chan struct{}, 1)}
	if s.now == nil {
		s.now = time.Now
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		if readOnly(err) {
			return nil, fmt.Errorf("sqlitestore: %s is %w: %w", path, ErrReadOnly, err)
		}
		return nil, err
	}
	return s, nil
}

// migrate creates the schema unless the file has it, in one write transaction, so that
// processes opening a new file at once create it once.
func (s *Store) migrate(ctx context.Context) error {
	return s.write(ctx, func(w wtx, _ int64) error {
		tx := w.tx // not prepared elsewhere: the schema is not there before it commits
		var version int
		if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
			return err
		}
		switch {
		case version == schemaVersion:
			return nil
		case version > schemaVersion:
			return fmt.Errorf("sqlitestore: the file's schema version %d is newer than this store's %d", version, schemaVersion)
		}
		for _, stmt := range schema {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion))
		return err
	})
}

// writable checks that this process may open the file at path for writing, if it exists.
// SQLite opens a file it cannot write read-only, without an error, and then creates its
// -wal and -shm files with the file's mode (0444 makes them unwritable for the next open
// too): refusing first leaves nothing behind.
func writable(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // SQLite creates it
	}
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			return pe.Err // the path is in the caller's message
		}
		return err
	}
	return f.Close()
}

// readOnly reports whether err is SQLite's refusal to write a read-only database (its
// -wal or -shm file unwritable: SQLite refuses at the first transaction).
func readOnly(err error) bool {
	e, ok := errors.AsType[*sqlite.Error](err)
	return ok && e.Code()&0xff == sqlite3.SQLITE_READONLY
}

// write runs fn in one BEGIN IMMEDIATE transaction, with the store's time read once the
// write lock is held, and commits when fn returns nil.
func (s *Store) write(ctx context.Context, fn func(tx wtx, now int64) error) error {
	select {
	case s.writing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writing }()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(wtx{tx, s}, stamp(s.now())); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Close implements [tasks.Store].
func (s *Store) Close() error {
	s.stmts.Range(func(_, st any) bool { _ = st.(*sql.Stmt).Close(); return true })
	return s.db.Close()
}
