package streamable

import (
	"context"
	"errors"
	"net"
	"time"
)

// Shutdown drains the listener in five steps, after [Server.Ready] has turned false and,
// with ListenerConfig.DrainDelay, the listener has gone on accepting and serving for that
// long (or until ctx ends): (1) the listening socket closes, so new connections are refused; (2) a connection whose head or body is still arriving gets 503
// with -32603 "Server is shutting down", while requests read in full run to their response;
// (3) each open listen stream gets its completion response; (4) after DrainTimeout (or when
// ctx ends, if sooner) the remaining connections are closed and their work cancelled; (5) an
// owned executor stops, an injected one keeps running. Shutdown returns nil when everything
// finished within the window, else the context error. A later call waits for the first to
// finish and returns its result.
//
// Listen streams end through the core's CloseSubscriptions, which completes the
// subscriptions of every transport serving the same fastmcp.Server.
func (s *Server) Shutdown(ctx context.Context) error {
	if !s.unready.CompareAndSwap(false, true) {
		select {
		case <-s.shutdownDone:
			return s.shutdownErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.delayDrain(ctx)
	s.draining.Store(true)
	s.shutdownErr = s.drain(ctx)
	close(s.shutdownDone)
	return s.shutdownErr
}

// drainDelayTimer returns the channel that ends a DrainDelay (a test replaces it).
var drainDelayTimer = func(d time.Duration) <-chan time.Time { return time.After(d) }

// delayDrain waits out DrainDelay, unready and still serving, so that a load balancer
// polling /readyz marks the listener down before its socket refuses connections. A listener
// not served yet has nothing to hand over and does not wait.
func (s *Server) delayDrain(ctx context.Context) {
	s.mu.Lock()
	served := s.served
	s.mu.Unlock()
	if !served || s.cfg.DrainDelay == 0 {
		return
	}
	select {
	case <-drainDelayTimer(s.cfg.DrainDelay):
	case <-ctx.Done():
	case <-s.serving: // Serve failed: there is nothing left to hand over
	}
}

// drain is the first Shutdown's work.
func (s *Server) drain(ctx context.Context) error {
	ep := s.ep
	drain, cancel := context.WithTimeout(ctx, ep.cfg.DrainTimeout)
	defer cancel()

	s.mu.Lock()
	l := s.ln
	s.mu.Unlock()
	if l != nil {
		_ = l.Listener.Close() // (1) new connections are refused
		l.interruptReads()     // (2) heads and bodies still arriving get 503
	}
	ep.srv.CloseSubscriptions() // (3)
	ep.stopSessions()
	err := s.fs.ShutdownWithContext(drain)
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	for err == nil && s.streams.len() > 0 && drain.Err() == nil {
		select { // hijacked streams are invisible to fasthttp: wait for their last event
		case <-drain.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
	if drain.Err() != nil {
		err = drain.Err()
	}
	s.streams.closeAll()
	s.closeConns()
	if ep.ownExec {
		cctx, ccancel := context.WithTimeout(context.Background(), time.Second)
		_ = ep.exec.Close(cctx)
		ccancel()
	}
	ep.stats.drains.Add(1)
	s.mu.Lock()
	served := s.served
	s.mu.Unlock()
	if served {
		<-s.serving
		s.stopTick()
	}
	return err
}

// closeConns closes every connection still open and cancels its work.
func (s *Server) closeConns() {
	s.mu.Lock()
	l := s.ln
	s.mu.Unlock()
	if l == nil {
		return
	}
	for _, c := range l.conns.all() {
		_ = c.Close() // first, so a cancelled handler's late reply cannot reach the client
		s.ep.exec.Cancel(keyOf(c), errShutdownCancel)
	}
}

var errShutdownCancel = errors.New("streamable: drain timeout")
