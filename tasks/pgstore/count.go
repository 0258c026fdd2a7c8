package pgstore

import (
	"context"
	"fmt"

	"github.com/fastmcp-go/fastmcp/tasks"
)

var _ tasks.Counter = (*Store)(nil)

// CountByStatus implements [tasks.Counter] with one grouped read.
func (s *Store) CountByStatus(ctx context.Context) (map[tasks.Status]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT status, count(*) FROM fastmcp_tasks WHERE `+notExpired+` GROUP BY status`)
	if err != nil {
		return nil, fmt.Errorf("pgstore: count by status: %w", err)
	}
	defer rows.Close()
	n := make(map[tasks.Status]int, len(tasks.Statuses))
	for rows.Next() {
		var status string
		var count int64
		if err := rows.Scan(&status, &count); err != nil {
			return nil, fmt.Errorf("pgstore: count by status: %w", err)
		}
		n[tasks.Status(status)] = int(count)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pgstore: count by status: %w", err)
	}
	return n, nil
}
