package observe

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// DefaultTasksTimeout bounds one scrape's count of the tasks by status.
const DefaultTasksTimeout = 2 * time.Second

// TasksName is the gauge of the tasks by status, LabelStatus its label.
const (
	TasksName   = "fastmcp_tasks"
	LabelStatus = "status"
	tasksHelp   = "Tasks in the store by status (expired ones excluded), counted at scrape time."
)

var descTasks = prometheus.NewDesc(TasksName, tasksHelp, []string{LabelStatus}, nil)

// collectTasks counts the tasks by status within the timeout and sends one gauge per
// status, zeros included, so the five series always exist. When the count fails or runs
// out of time the series are left out of this scrape (the rest of it is answered) and the
// failure is logged: a slow database never stalls the scrape past the timeout.
func collectTasks(ch chan<- prometheus.Metric, c tasks.Counter, timeout time.Duration, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	n, err := c.CountByStatus(ctx)
	if err == nil {
		err = ctx.Err() // a store that ignored the context answered too late
	}
	if err != nil {
		logger.Warn("observe: cannot count the tasks by status; "+TasksName+" is left out of this scrape", "err", err, "timeout", timeout)
		return
	}
	for _, s := range tasks.Statuses {
		ch <- prometheus.MustNewConstMetric(descTasks, prometheus.GaugeValue, float64(n[s]), string(s))
	}
}
