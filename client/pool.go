package client

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// PoolStats counts what the HTTP pool did with its connections.
type PoolStats struct {
	// Dials is the number of connections opened.
	Dials int64
	// Reuses is the number of requests sent on a connection that had served one before.
	Reuses int64
	// Retired is the number of connections closed: request limit reached, idle too long, a
	// response that cannot be reused (event stream, chunked, close-framed, Connection: close,
	// malformed) or a failed request, and idle connections closed by Close.
	Retired int64
}

// pconn is one pooled HTTP/1.1 connection.
type pconn struct {
	nc net.Conn
	// raw is the TCP connection under nc (nc itself without TLS): abort closes it, without
	// the close_notify a tls.Conn's Close would try to write.
	raw       net.Conn
	br        *bufio.Reader
	bw        *bufio.Writer
	hdr       fasthttp.ResponseHeader
	uses      int
	idleSince time.Time
	// cancel is what a cancelled request runs (abort, then the test hook): made once per
	// connection, not a closure per request.
	cancel func()
}

// pool holds at most size connections to one origin. A slot is taken for each request and
// returned when its response ends or, for an event stream, when the stream detaches.
type pool struct {
	addr        string
	tlsConf     *tls.Config
	size        int // slots: requests holding a connection, or dialing one
	idleTO      time.Duration
	maxReqs     int
	mu          sync.Mutex
	idle        []*pconn // LIFO: the most recently used connection is the likeliest alive
	inUse       int      // slots taken
	waiters     waitQueue
	waitTimer   *time.Timer // times out the waiters (pool_wait.go)
	waitAt      time.Time   // when waitTimer fires; zero when it is not armed
	freeWaiters []*slotWaiter
	closed      bool
	reaper      *time.Timer // armed while connections are idle: closes those idle too long
	dials       atomic.Int64
	reuses      atomic.Int64
	retired     atomic.Int64
	dialer      net.Dialer
	nowForTest  func() time.Time
}

func newPool(addr string, tlsConf *tls.Config, cfg *Config) *pool {
	return &pool{
		addr:    addr,
		tlsConf: tlsConf,
		size:    cfg.PoolSize,
		idleTO:  cfg.PoolIdleTimeout,
		maxReqs: cfg.PoolMaxRequests,
	}
}

func (p *pool) now() time.Time {
	if p.nowForTest != nil {
		return p.nowForTest()
	}
	return time.Now()
}

// acquire takes a slot, waiting until deadline, then an idle connection or a new one.
func (p *pool) acquire(ctx context.Context, deadline time.Time) (*pconn, error) {
	p.mu.Lock()
	if p.inUse < p.size {
		p.inUse++
	} else if err := p.wait(ctx, deadline); err != nil { // unlocks p.mu while it waits
		return nil, err
	}
	for {
		// p.mu is held here, and a slot taken.
		if p.closed {
			p.mu.Unlock()
			p.freeSlot()
			return nil, ErrClosed
		}
		var pc *pconn
		if n := len(p.idle); n > 0 {
			pc = p.idle[n-1]
			p.idle[n-1] = nil
			p.idle = p.idle[:n-1]
		}
		p.mu.Unlock()
		if pc == nil {
			break
		}
		if p.now().Sub(pc.idleSince) >= p.idleTO {
			p.retire(pc)
			p.mu.Lock()
			continue
		}
		p.reuses.Add(1)
		return pc, nil
	}
	pc, err := p.dial(ctx, deadline)
	if err != nil {
		p.freeSlot()
		return nil, err
	}
	return pc, nil
}

// wait queues for a slot until release hands one over (it returns nil with p.mu held
// again), ctx ends or deadline passes (an error, p.mu released). Called with p.mu held.
func (p *pool) wait(ctx context.Context, deadline time.Time) error {
	if !time.Now().Before(deadline) {
		p.mu.Unlock()
		return fmt.Errorf("%w: %w", ErrPoolTimeout, context.DeadlineExceeded)
	}
	w := p.newWaiter(deadline)
	p.waiters.push(w)
	p.armWaitTimer(deadline)
	p.mu.Unlock()
	var err error
	select {
	case err = <-w.ch:
	case <-ctx.Done():
		p.mu.Lock()
		queued := w.queued
		if queued {
			p.waiters.remove(w)
		}
		p.mu.Unlock()
		if !queued { // answered meanwhile: a slot to give back, or a timeout
			if <-w.ch == nil {
				p.freeSlot()
			}
		}
		err = ctx.Err()
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %w", ErrPoolTimeout, err)
		} else {
			err = &stepError{"waiting for a connection", err}
		}
	}
	if err == errPoolWait {
		return fmt.Errorf("%w: %w", ErrPoolTimeout, context.DeadlineExceeded)
	}
	if err == nil {
		p.mu.Lock()
		p.freeWaiters = append(p.freeWaiters, w) // its channel is empty again
	}
	return err
}

// freeSlot returns a slot: to the first waiter when there is one.
func (p *pool) freeSlot() {
	p.mu.Lock()
	p.freeSlotLocked()
	p.mu.Unlock()
}

func (p *pool) freeSlotLocked() {
	if w := p.waiters.head; w != nil {
		p.waiters.remove(w)
		w.ch <- nil // the slot passes to w: inUse is unchanged
		return
	}
	p.inUse--
}

func (p *pool) dial(ctx context.Context, deadline time.Time) (*pconn, error) {
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	nc, err := p.dialer.DialContext(dctx, "tcp", p.addr)
	if err != nil {
		return nil, &stepError{"connecting to " + p.addr, err}
	}
	raw := nc
	if p.tlsConf != nil {
		tc := tls.Client(nc, p.tlsConf)
		if err := tc.HandshakeContext(dctx); err != nil {
			_ = nc.Close()
			return nil, &stepError{"TLS handshake with " + p.addr, err}
		}
		nc = tc
	}
	p.dials.Add(1)
	pc := &pconn{nc: nc, raw: raw, br: bufio.NewReaderSize(nc, 4096), bw: bufio.NewWriterSize(nc, 4096)}
	pc.cancel = func() {
		pc.abort()
		runHook(&testHookCancelled)
	}
	return pc, nil
}

// abort closes pc's socket from any goroutine: every read or write on it fails from now on.
// pc is then never reused.
func (pc *pconn) abort() { _ = pc.raw.Close() }

// release returns pc's slot; pc goes back to the idle list when reusable and under its
// request limit, and is closed otherwise. A nil pc (detached) only returns the slot.
func (p *pool) release(pc *pconn, reusable bool) {
	if pc != nil {
		pc.uses++
		if reusable && pc.uses < p.maxReqs {
			pc.idleSince = p.now()
		} else {
			p.retire(pc)
			pc = nil
		}
	}
	p.mu.Lock()
	if pc != nil && !p.closed {
		p.idle = append(p.idle, pc)
		pc = nil
		if p.reaper == nil {
			p.reaper = time.AfterFunc(p.idleTO, p.reap)
		}
	}
	p.freeSlotLocked()
	p.mu.Unlock()
	if pc != nil { // reusable, but the pool closed meanwhile
		p.retire(pc)
	}
}

func (p *pool) retire(pc *pconn) {
	_ = pc.nc.Close()
	p.retired.Add(1)
}

// reap closes the connections idle for PoolIdleTimeout and rearms for the next to expire.
func (p *pool) reap() {
	now := p.now()
	var expired []*pconn
	p.mu.Lock()
	keep := p.idle[:0]
	var next time.Duration
	for _, pc := range p.idle {
		if left := p.idleTO - now.Sub(pc.idleSince); left > 0 {
			keep = append(keep, pc)
			if next == 0 || left < next {
				next = left
			}
		} else {
			expired = append(expired, pc)
		}
	}
	clear(p.idle[len(keep):])
	p.idle = keep
	if next > 0 && !p.closed {
		p.reaper.Reset(next)
	} else {
		p.reaper = nil
	}
	p.mu.Unlock()
	for _, pc := range expired {
		p.retire(pc)
	}
}

// close closes the idle connections; in-flight ones close when their requests end.
func (p *pool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.closed = true
	if p.reaper != nil {
		p.reaper.Stop()
		p.reaper = nil
	}
	if p.waitTimer != nil && p.waiters.n == 0 {
		p.waitTimer.Stop() // waiters left keep it: they still time out
		p.waitTimer, p.waitAt = nil, time.Time{}
	}
	p.mu.Unlock()
	for _, pc := range idle {
		p.retire(pc)
	}
}

func (p *pool) stats() PoolStats {
	return PoolStats{Dials: p.dials.Load(), Reuses: p.reuses.Load(), Retired: p.retired.Load()}
}
