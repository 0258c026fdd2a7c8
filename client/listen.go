package client

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/decode"
)

// ListenFilter selects the notifications a subscription carries.
type ListenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// LogMessages asks, on an initialize-era connection whose server declares logging, for
	// the notifications/message it receives: outside any request (stdio, a session's GET
	// stream) and, since stdio cannot tell them apart, those of calls too. It is not sent: a
	// modern server never puts log messages on a listen stream (2026-07-28 §5), so there
	// Acknowledged never has it. Config.OnLog receives every log message whatever the filters.
	LogMessages bool `json:"-"`
	// TaskIDs asks for notifications/tasks about these tasks (the tasks extension): the
	// request then declares the extension, and Acknowledged lists the ids the server agreed
	// to report. Only on a modern connection; the initialize era has no tasks.
	TaskIDs []string `json:"taskIds,omitempty"`
}

// Notification is one notification a subscription delivered.
type Notification struct {
	Method string
	Params json.RawMessage
}

// End says how a subscription ended.
type End uint8

const (
	// EndNone: the subscription is still open.
	EndNone End = iota
	// EndLocal: Close was called or the Listen context ended.
	EndLocal
	// EndGraceful: the server sent the listen request's response (for example at shutdown).
	EndGraceful
	// EndRemote: the stream broke or the server answered with an error (see Err).
	EndRemote
)

func (e End) String() string {
	return [...]string{"open", "local", "graceful", "remote"}[e]
}

// Subscription is an open subscriptions/listen stream (2026-07-28), or on an initialize-era
// connection the notifications the server sends unasked that its filter selects. Read its
// notifications from C; when the subscription ends, C is closed and End tells how.
type Subscription struct {
	// C delivers the notifications, in order. A reader slower than the server loses the
	// newest ones once ListenBuffer are waiting (counted by Dropped).
	C <-chan Notification
	// Acknowledged is the filter the server said it honours.
	Acknowledged ListenFilter

	c       chan Notification
	cancel  context.CancelFunc
	done    chan struct{}
	dropped atomic.Int64
	local   atomic.Bool

	// remote closes when the connection ends an initialize-era subscription, remoteEnd and
	// remoteErr saying how (set with the client's events lock held).
	remote    chan struct{}
	remoteEnd End
	remoteErr error

	mu  sync.Mutex
	end End
	err error
}

// Listen opens a subscription and returns once the server acknowledges it. It lives until
// Close, until ctx ends, or until the server ends it.
//
// On an initialize-era connection there is no listen request: the subscription takes the
// notifications the server sends unasked (over stdio, or on a session's GET stream over
// HTTP) of the kinds its initialize capabilities announce, and subscribes the filter's URIs
// with resources/subscribe when they include resources.subscribe (unsubscribed when the
// last subscription listing a URI ends). Acknowledged says what that gives. Over HTTP a
// server whose GET is refused (a stateless one) has nothing to deliver: ErrNoEventStream.
func (c *Client) Listen(ctx context.Context, f ListenFilter) (*Subscription, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	if !c.modern {
		return c.listenLegacy(ctx, f)
	}
	filter, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	members := append([]byte(`"notifications":`), filter...)
	id := c.nextID.Add(1)
	meta := c.meta()
	if len(f.TaskIDs) > 0 {
		meta = c.taskMeta()
	}
	req := appendRequest(nil, id, "subscriptions/listen", members, meta, 0)
	hdr := &headers{version: c.currentVersion(), method: "subscriptions/listen", longLived: true}

	lctx, cancel := context.WithCancel(ctx)
	ch := make(chan Notification, c.cfg.ListenBuffer)
	s := &Subscription{C: ch, c: ch, cancel: cancel, done: make(chan struct{})}
	acked := make(chan error, 1)
	var ackOnce sync.Once
	ack := func(err error) { ackOnce.Do(func() { acked <- err }) }

	go func() {
		defer close(s.done)
		defer close(ch)
		raw, err := c.t.roundTrip(lctx, req, hdr, func(msg []byte) ([]byte, error) {
			c.deliver(s, msg, ack)
			return nil, nil
		})
		err = c.rpcError(err, requestID(req))
		end := EndRemote
		switch {
		case s.local.Load() || (err != nil && ctx.Err() != nil):
			end, err = EndLocal, nil
		case err == nil:
			r, perr := c.parseResponse(raw, requestID(req))
			switch {
			case perr != nil:
				err = perr
			case r.err != nil:
				err = r.err
			default:
				end = EndGraceful
			}
		}
		s.mu.Lock()
		s.end, s.err = end, err
		s.mu.Unlock()
		if err == nil {
			err = errors.New("client: the subscription ended before its acknowledgement")
		}
		ack(err)
	}()

	if err := <-acked; err != nil {
		cancel()
		<-s.done
		return nil, err
	}
	return s, nil
}

// deliver routes one message of the listen stream: the acknowledgement, then notifications.
func (c *Client) deliver(s *Subscription, msg []byte, ack func(error)) {
	m := msgPool.Get().(*decode.Message)
	defer msgPool.Put(m)
	if err := c.dec.Decode(m, msg); err != nil || m.Kind() != decode.KindNotification {
		c.cfg.Logger.Warn("client: ignoring a message on a listen stream", "err", err, "kind", m.Kind())
		return
	}
	method := string(m.Method().Text())
	params := json.RawMessage(append([]byte(nil), m.Params().Raw()...))
	if method == "notifications/subscriptions/acknowledged" {
		var a struct {
			Notifications ListenFilter `json:"notifications"`
		}
		_ = json.Unmarshal(params, &a)
		s.Acknowledged = a.Notifications
		ack(nil)
		return
	}
	select {
	case s.c <- Notification{Method: method, Params: params}:
	default:
		s.dropped.Add(1)
		c.cfg.Logger.Warn("client: listen buffer full, dropping a notification", "method", method)
	}
}

// Close ends the subscription (closing its stream) and waits for it to wind down.
func (s *Subscription) Close() error {
	s.local.Store(true)
	s.cancel()
	<-s.done
	return nil
}

// Done is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// End reports how the subscription ended (EndNone while open) and, for EndRemote, why.
func (s *Subscription) End() (End, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.end, s.err
}

// Dropped counts the notifications lost to a full buffer.
func (s *Subscription) Dropped() int64 { return s.dropped.Load() }
