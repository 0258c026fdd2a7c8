package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fastmcp-go/fastmcp/tasks"
)

var _ tasks.Counter = (*Store)(nil)

// CountByStatus implements [tasks.Counter] with one grouped read, which takes no write slot.
func (s *Store) CountByStatus(ctx context.Context) (map[tasks.Status]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT status, count(*) FROM tasks WHERE `+notExpired+` GROUP BY status`,
		sql.Named("now", stamp(s.now())))
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: count by status: %w", err)
	}
	defer rows.Close()
	n := make(map[tasks.Status]int, len(tasks.Statuses))
	for rows.Next() {
		var status string
		var count int
		if err := rows.Scan(&status, &count); err != nil {
			return nil, fmt.Errorf("sqlitestore: count by status: %w", err)
		}
		n[tasks.Status(status)] = count
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlitestore: count by status: %w", err)
	}
	return n, nil
}
