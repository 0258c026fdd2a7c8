package sqlitestore

import "database/sql"

// DB is the store's handle, for the benchmark's floor on the same database.
func (s *Store) DB() *sql.DB { return s.db }
