package pool_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/pool"
)

// Thumbnailer is a plain service that runs its work on an embedded
// executor: at most 4 images at once, 16 waiting, one second each.
type Thumbnailer struct {
	ex *pool.Executor
}

func NewThumbnailer() (*Thumbnailer, error) {
	ex, err := pool.New(pool.Config{MaxConcurrency: 4, MaxQueue: 16, DefaultTimeout: time.Second})
	if err != nil {
		return nil, err
	}
	return &Thumbnailer{ex: ex}, nil
}

// thumbJob is one request; it implements pool.Task.
type thumbJob struct {
	name   string
	thumb  string // written by Run, read after a Completed result
	result chan pool.Result
}

func (j *thumbJob) Run(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.thumb = "thumb-" + strings.ToLower(j.name)
	return nil
}

func (j *thumbJob) Done(r pool.Result) { j.result <- r }

// Thumb runs one job and waits for its outcome.
func (s *Thumbnailer) Thumb(ctx context.Context, name string) (string, error) {
	j := &thumbJob{name: name, result: make(chan pool.Result, 1)}
	if err := s.ex.Submit(ctx, pool.Key{}, j); err != nil {
		return "", err // pool.ErrOverloaded: tell the caller to come back later
	}
	select {
	case r := <-j.result:
		if r.Outcome != pool.Completed {
			return "", fmt.Errorf("thumbnail %s: %s: %w", name, r.Outcome, r.Err)
		}
		return j.thumb, nil
	case <-ctx.Done():
		return "", context.Cause(ctx) // nothing is delivered once ctx ends
	}
}

func (s *Thumbnailer) Close(ctx context.Context) error { return s.ex.Close(ctx) }

func Example() {
	svc, err := NewThumbnailer()
	if err != nil {
		panic(err)
	}
	defer svc.Close(context.Background())

	thumb, err := svc.Thumb(context.Background(), "Cat.PNG")
	fmt.Println(thumb, err)
	// Output: thumb-cat.png <nil>
}

// waitTask runs until released and reports its outcome.
type waitTask struct {
	release chan struct{}
	result  chan pool.Result
}

func newWaitTask() *waitTask {
	return &waitTask{release: make(chan struct{}), result: make(chan pool.Result, 1)}
}

func (t *waitTask) Run(ctx context.Context) error {
	select {
	case <-t.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *waitTask) Done(r pool.Result) { t.result <- r }

// With one worker and no queue, a second job is refused at once; a keyed
// job can be cancelled with a reason.
func ExampleExecutor_Cancel() {
	ex, err := pool.New(pool.Config{MaxConcurrency: 1, MaxQueue: pool.NoQueue})
	if err != nil {
		panic(err)
	}
	defer ex.Close(context.Background())

	key := pool.Key{Owner: 1, ID: "42"} // connection 1, request id 42
	first := newWaitTask()
	fmt.Println(ex.Submit(context.Background(), key, first))

	err = ex.Submit(context.Background(), pool.Key{}, pool.Func(func(context.Context) error { return nil }))
	fmt.Println(errors.Is(err, pool.ErrOverloaded))

	ex.Cancel(key, errors.New("client sent notifications/cancelled"))
	r := <-first.result
	fmt.Println(r.Outcome, r.Err)
	// Output:
	// <nil>
	// true
	// cancelled client sent notifications/cancelled
}
