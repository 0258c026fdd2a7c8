package tasks

import "context"

// Statuses lists every Status, in the status machine's order.
var Statuses = [...]Status{StatusWorking, StatusInputRequired, StatusCompleted, StatusFailed, StatusCancelled}

// Counter is what a Store that can count its tasks by status implements (memstore,
// sqlitestore and pgstore do): a metrics collector asks it at scrape time. Expired tasks,
// which read as unknown, are not counted; a status without tasks may be missing from the map.
type Counter interface {
	CountByStatus(ctx context.Context) (map[Status]int, error)
}
