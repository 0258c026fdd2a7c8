package pool

import (
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// Defaults used when a [Config] field is zero.
const (
	// DefaultMaxConcurrency is the default number of jobs that run at once.
	DefaultMaxConcurrency = 32
	// DefaultMaxQueue is the default number of admitted jobs that wait for a worker.
	DefaultMaxQueue = 256
	// DefaultTimeout is the default deadline of a job, counted from admission.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxSlots is the default number of slots (see [Slots]).
	DefaultMaxSlots = 256
)

// Explicit "none" values for [Config] fields whose zero value means the default.
const (
	// NoQueue in [Config.MaxQueue] disables the queue: a job is admitted only
	// when a worker is free and is refused with [ErrOverloaded] otherwise.
	NoQueue = -1
	// NoTimeout in [Config.DefaultTimeout] or [Executor.SubmitTimeout] gives a
	// job no deadline of its own; it still ends with its submitter's context.
	NoTimeout time.Duration = -1
)

// Config configures an [Executor]. The zero value is ready to use: every
// zero field means its default, never "unlimited". [New] copies the struct;
// changing it afterwards has no effect.
type Config struct {
	// MaxConcurrency bounds the jobs whose Run is executing at once, and so
	// the worker goroutines. If zero, [DefaultMaxConcurrency] is used.
	// Negative values and values above math.MaxInt32 are invalid.
	MaxConcurrency int

	// MaxQueue bounds the admitted jobs that wait, in FIFO order, for a
	// worker. If zero, [DefaultMaxQueue] is used. [NoQueue] (-1) means no
	// queue at all. Other negative values are invalid.
	MaxQueue int

	// DefaultTimeout is the deadline of a job submitted with [Executor.Submit],
	// counted from admission, so time spent in the queue counts. If zero, the
	// constant [DefaultTimeout] is used. [NoTimeout] (-1) means no deadline.
	// Other negative values are invalid.
	DefaultTimeout time.Duration

	// MaxSlots bounds the slots held at once (see [Slots]). If zero,
	// [DefaultMaxSlots] is used. Negative values are invalid.
	MaxSlots int

	// Logger receives the stack of a job that panicked. If nil,
	// slog.Default() at the time of [New] is used.
	Logger *slog.Logger
}

// settings are the resolved limits of an Executor.
type settings struct {
	maxRunning int
	maxQueue   int           // 0 when there is no queue
	timeout    time.Duration // NoTimeout when jobs have no deadline
	maxSlots   int
	log        *slog.Logger
}

// resolve validates c and replaces zero values with the defaults.
func (c Config) resolve() (settings, error) {
	s := settings{
		maxRunning: c.MaxConcurrency,
		maxQueue:   c.MaxQueue,
		timeout:    c.DefaultTimeout,
		maxSlots:   c.MaxSlots,
		log:        c.Logger,
	}
	switch {
	case s.maxRunning == 0:
		s.maxRunning = DefaultMaxConcurrency
	case s.maxRunning < 0 || s.maxRunning > math.MaxInt32:
		return settings{}, fmt.Errorf("%w: MaxConcurrency %d out of range [0, %d]",
			ErrInvalidConfig, c.MaxConcurrency, math.MaxInt32)
	}
	switch {
	case s.maxQueue == 0:
		s.maxQueue = DefaultMaxQueue
	case s.maxQueue == NoQueue:
		s.maxQueue = 0
	case s.maxQueue < 0:
		return settings{}, fmt.Errorf("%w: MaxQueue %d is negative (use NoQueue for no queue)",
			ErrInvalidConfig, c.MaxQueue)
	}
	switch {
	case s.timeout == 0:
		s.timeout = DefaultTimeout
	case s.timeout < 0 && s.timeout != NoTimeout:
		return settings{}, fmt.Errorf("%w: DefaultTimeout %v is negative (use NoTimeout for no deadline)",
			ErrInvalidConfig, c.DefaultTimeout)
	}
	if err := defaults.Resolve(&s.maxSlots, DefaultMaxSlots, "MaxSlots", ErrInvalidConfig); err != nil {
		return settings{}, err
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s, nil
}
