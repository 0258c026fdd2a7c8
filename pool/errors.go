package pool

import (
	"context"
	"errors"
)

var (
	// ErrInvalidConfig is wrapped by the error [New] returns for an invalid [Config].
	ErrInvalidConfig = errors.New("pool: invalid config")

	// ErrOverloaded is returned by Submit when every worker is busy and the
	// queue is full (or there is no queue). Nothing was admitted.
	ErrOverloaded = errors.New("pool: overloaded")

	// ErrDuplicateKey is returned by Submit when a job with the same [Key] is
	// running or queued. Nothing was admitted.
	ErrDuplicateKey = errors.New("pool: duplicate key")

	// ErrClosed is returned by Submit and [Slots.Acquire] after
	// [Executor.Close]. It is also the reason a job was cancelled by Close.
	ErrClosed = errors.New("pool: executor closed")

	// ErrCancelled is the reason of a job cancelled by [Executor.Cancel] with a
	// nil reason.
	ErrCancelled = errors.New("pool: job cancelled")

	// ErrPanicked is the error of a job whose Run panicked or called
	// runtime.Goexit. It never carries the panic value, which is logged with
	// its stack instead.
	ErrPanicked = errors.New("pool: job panicked")

	// ErrNoSlot is returned by [Slots.Acquire] when every slot is held.
	ErrNoSlot = errors.New("pool: no free slot")

	// ErrTimeout is the error of a job that passed its deadline, and the cause
	// of its context (see context.Cause). errors.Is(ErrTimeout,
	// context.DeadlineExceeded) is true.
	ErrTimeout error = timeoutError{}
)

type timeoutError struct{}

func (timeoutError) Error() string { return "pool: job timed out" }
func (timeoutError) Timeout() bool { return true }
func (timeoutError) Unwrap() error { return context.DeadlineExceeded }
