package memstore

import (
	"context"

	"github.com/fastmcp-go/fastmcp/tasks"
)

var _ tasks.Counter = (*Store)(nil)

// CountByStatus implements [tasks.Counter]: one pass over the map under the store's mutex.
func (s *Store) CountByStatus(context.Context) (map[tasks.Status]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	n := make(map[tasks.Status]int, len(tasks.Statuses))
	for _, t := range s.tasks {
		if !expired(t, now) {
			n[t.Status]++
		}
	}
	return n, nil
}
