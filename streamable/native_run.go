package streamable

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// testHookRunning, if set, runs once Run listens for SIGINT and SIGTERM.
var testHookRunning func()

// Run serves until ctx ends or the process gets SIGINT or SIGTERM, then drains
// ([Server.Shutdown], within DrainTimeout) and returns: nil after a drain, the error that
// stopped serving otherwise; either way the server is shut down and its resources are let
// go. It listens on Addr first unless Listen was called. Serving
// until the process is told to stop, with a graceful drain, is then:
//
//	srv, err := streamable.New(core, streamable.ListenerConfig{Addr: ":8080"})
//	if err != nil {
//		log.Fatal(err)
//	}
//	if err := srv.Run(context.Background()); err != nil {
//		log.Fatal(err)
//	}
func (s *Server) Run(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if testHookRunning != nil {
		testHookRunning()
	}
	if s.URL() == "" {
		if err := s.Listen(); err != nil {
			_ = s.Shutdown(context.WithoutCancel(ctx))
			return err
		}
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	select {
	case err := <-served: // before any signal: a failure, or another's Shutdown
		if errors.Is(err, ErrServerClosed) {
			return nil
		}
		_ = s.Shutdown(context.WithoutCancel(ctx))
		return err
	case <-ctx.Done():
	}
	err := s.Shutdown(context.WithoutCancel(ctx))
	if serr := <-served; err == nil && !errors.Is(serr, ErrServerClosed) {
		err = serr
	}
	return err
}
