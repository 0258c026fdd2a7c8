//go:build !linux

package loadtest

import (
	"context"
	"time"
)

// The epoll engine is Linux's (epoll_linux.go); elsewhere the goroutine loop drives every
// load.

func (l *load) epollAvailable(context.Context, *worker) bool { return false }

func (l *load) runEpoll(context.Context, []*worker, time.Time, time.Time) bool { return false }
