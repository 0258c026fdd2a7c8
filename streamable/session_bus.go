package streamable

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// sessionAckTimeout bounds how long a request that changes a session (resources/subscribe,
// unsubscribe, logging/setLevel) waits for the replica holding the session's stream to
// acknowledge it over the bus, and how long a resuming GET waits for the replica that held
// the stream to hand its events over. With no answer, this replica keeps the change itself
// (detached, for ResumeTimeout) and hands it to whichever replica the stream opens on.
const sessionAckTimeout = 500 * time.Millisecond

// sessionNotLog marks a SessionMessage notification that is not a log message (it is
// delivered whatever the session's level).
const sessionNotLog = -128

// The operations of SessionMessage events, the first byte of their Data. Topic is always
// the session's (sessionTopic).
const (
	opNotify      = 'n' // level (int8; sessionNotLog) | a JSON-RPC notification for the stream
	opSubscribe   = 's' // nonce | URI
	opUnsubscribe = 'u' // nonce | URI
	opLevel       = 'l' // nonce | level (int8) | expiry (Unix ms, 8)
	opAck         = 'a' // nonce | result (ackOK, ackLimit)
	opEnd         = 'e' // expiry (Unix ms, 8): DELETE; every replica answers the id 404 until then
	opAttach      = 'h' // nonce | Last-Event-ID: a GET opened the stream; a holder hands over
	opState       = 't' // nonce | stateWire as JSON: the handover
)

const (
	ackOK    = 0
	ackLimit = 1
)

// sessionTopic is the Topic of a session's events: a digest of its id, which names the
// session without revealing the id (which is its credential).
func sessionTopic(id []byte) string {
	sum := sha256.Sum256(id)
	return "mcp-session/" + hex.EncodeToString(sum[:16])
}

// SessionNotification returns the event that delivers notification msg (a whole JSON-RPC
// notification) on the stream of the session whose Mcp-Session-Id is sessionID, on
// whichever replica holds it: give it to the fastmcp.Server's Publish. A log message
// (notifications/message) goes out only at or above the session's level: pass its level;
// any other notification, with fastmcp.LogOff, always. msg must be at most 64 KiB.
func SessionNotification(sessionID []byte, level fastmcp.LogLevel, msg []byte) fastmcp.Event {
	l := int8(level)
	if level == fastmcp.LogOff {
		l = sessionNotLog
	}
	data := append([]byte{opNotify, byte(l)}, msg...)
	return fastmcp.Event{Kind: fastmcp.SessionMessage, Topic: sessionTopic(sessionID), Data: data}
}

// maxSessionNotifyBytes bounds a notification published for a session's stream.
const maxSessionNotifyBytes = 64 << 10

// sessions is this replica's part of the initialize-era sessions: the states of those whose
// stream it holds (or held, for ResumeTimeout), the requests waiting for another replica's
// acknowledgement, and what it heard over the bus of sessions ended and levels set. It is
// not a session table: a session this replica never streamed is nowhere in it.
type sessions struct {
	ep        *endpoint
	cancelTap func()
	ended     *topicMemo // DELETEd sessions, until they expire
	levels    *topicMemo // the level last set per session, until it expires

	stopOnce sync.Once

	mu      sync.Mutex
	states  map[string]*sessionState
	waiters map[nonce]chan []byte
}

func newSessions(ep *endpoint) *sessions {
	s := &sessions{
		ep:      ep,
		ended:   newTopicMemo(ep.cfg.MaxEndedSessions),
		levels:  newTopicMemo(ep.cfg.MaxEndedSessions),
		states:  map[string]*sessionState{},
		waiters: map[nonce]chan []byte{},
	}
	s.cancelTap = ep.core.Subscribe(s.deliver)
	return s
}

// stopSessions ends the sessions' subscription to the bus and every session stream this
// replica holds (a drain, a close): their clients resume on another replica.
func (ep *endpoint) stopSessions() {
	if ep.sessions != nil {
		ep.sessions.stop()
	}
}

// stop ends the subscription to the bus and every stream this replica holds.
func (s *sessions) stop() {
	s.stopOnce.Do(s.cancelTap)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.states {
		st.mu.Lock() // st.conn is st's, which detach clears under st.mu
		conn := st.conn
		st.mu.Unlock()
		if conn != nil {
			conn.close()
		}
	}
}

func (s *sessions) publish(topic string, data []byte) {
	s.ep.core.Publish(fastmcp.Event{Kind: fastmcp.SessionMessage, Topic: topic, Data: data})
}

// deliver is the bus's callback: it never blocks.
func (s *sessions) deliver(e fastmcp.Event) {
	switch e.Kind {
	case fastmcp.SessionMessage:
		s.onMessage(e.Topic, e.Data)
	case fastmcp.ToolsListChanged, fastmcp.PromptsListChanged, fastmcp.ResourcesListChanged, fastmcp.ResourceUpdated:
		s.mu.Lock()
		states := make([]*sessionState, 0, len(s.states))
		for _, st := range s.states {
			states = append(states, st)
		}
		s.mu.Unlock()
		for _, st := range states {
			st.offer(e, s.ep.cfg.MaxReplayEvents)
		}
	}
}

func (s *sessions) onMessage(topic string, d []byte) {
	if len(d) == 0 {
		return
	}
	op, rest := d[0], d[1:]
	if op == opNotify {
		if len(rest) < 1 || len(rest) > 1+maxSessionNotifyBytes {
			return
		}
		if st := s.state(topic); st != nil {
			st.offerLog(int8(rest[0]), rest[1:], s.ep.cfg.MaxReplayEvents)
		}
		return
	}
	if op == opEnd {
		if len(rest) == 8 {
			s.end(topic, time.UnixMilli(int64(binary.BigEndian.Uint64(rest))))
		}
		return
	}
	if len(rest) < len(nonce{}) {
		return
	}
	n, arg := nonce(rest[:16]), rest[16:]
	switch op {
	case opAck, opState:
		s.mu.Lock()
		ch := s.waiters[n]
		st := s.states[topic]
		s.mu.Unlock()
		if ch != nil {
			select {
			case ch <- append([]byte{op}, arg...):
			default:
			}
		} else if op == opState && st != nil {
			var w stateWire
			if json.Unmarshal(arg, &w) == nil {
				st.merge(w, s.ep.cfg.MaxSessionSubscriptions)
			}
		}
	case opSubscribe, opUnsubscribe, opLevel:
		if op == opLevel && len(arg) == 9 {
			s.levels.put(topic, int8(arg[0]), time.UnixMilli(int64(binary.BigEndian.Uint64(arg[1:]))))
		}
		if st := s.state(topic); st != nil {
			s.publish(topic, append(append([]byte{opAck}, n[:]...), s.apply(st, op, arg)))
		}
	case opAttach:
		s.handOver(topic, n)
	}
}

// state returns this replica's state of topic, or nil.
func (s *sessions) state(topic string) *sessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.states[topic]
}

// apply makes a change to the session's state, returning its ack result.
func (s *sessions) apply(st *sessionState, op byte, arg []byte) byte {
	switch op {
	case opSubscribe, opUnsubscribe:
		if !st.subscribe(string(arg), op == opSubscribe, s.ep.cfg.MaxSessionSubscriptions) {
			return ackLimit
		}
	case opLevel:
		if len(arg) > 0 {
			st.setLevel(fastmcp.LogLevel(int8(arg[0])))
		}
	}
	return ackOK
}

// handOver answers another replica's attach: this replica's state of the session goes to it,
// and a stream held here ends (one stream per session; the newest wins).
func (s *sessions) handOver(topic string, n nonce) {
	s.mu.Lock()
	st := s.states[topic]
	if st == nil || st.attachNonce == n {
		s.mu.Unlock()
		return
	}
	delete(s.states, topic)
	s.mu.Unlock()
	st.mu.Lock()
	conn := st.conn
	st.conn = nil
	st.mu.Unlock()
	if conn != nil {
		conn.close()
	}
	b, err := json.Marshal(st.snapshot())
	if err != nil || len(b) > fastmcp.MaxEventData-64 {
		return
	}
	s.publish(topic, append(append([]byte{opState}, n[:]...), b...))
}

// end forgets an ended session and ends its stream here; its id is answered 404 until it
// expires.
func (s *sessions) end(topic string, expiry time.Time) {
	s.ended.put(topic, 0, expiry)
	s.mu.Lock()
	st := s.states[topic]
	delete(s.states, topic)
	s.mu.Unlock()
	if st != nil {
		st.mu.Lock()
		conn := st.conn
		st.mu.Unlock()
		if conn != nil {
			conn.close()
		}
	}
}

// isEnded reports whether the session was DELETEd (heard by this replica).
func (s *sessions) isEnded(topic string) bool {
	_, ok := s.ended.get(topic, time.Now())
	return ok
}

// request asks the holder of the session's stream to apply a change and waits for its
// acknowledgement, up to sessionAckTimeout; with none, this replica keeps the change in a
// detached state of its own, which it hands over when the stream opens anywhere.
func (s *sessions) request(topic string, expiry time.Time, start fastmcp.LogLevel, op byte, arg []byte) byte {
	n := newNonce()
	ch := make(chan []byte, 1)
	s.mu.Lock()
	s.waiters[n] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiters, n)
		s.mu.Unlock()
	}()
	s.publish(topic, append(append([]byte{op}, n[:]...), arg...))
	t := time.NewTimer(sessionAckTimeout)
	defer t.Stop()
	select {
	case a := <-ch:
		if len(a) == 2 && a[0] == opAck {
			return a[1]
		}
	case <-t.C:
	}
	st := s.detachedState(topic, expiry, start)
	return s.apply(st, op, arg)
}

// detachedState returns this replica's state of topic, making a detached one if there is
// none: it holds changes until a stream takes them over, or ResumeTimeout.
func (s *sessions) detachedState(topic string, expiry time.Time, start fastmcp.LogLevel) *sessionState {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.states[topic]; st != nil {
		return st
	}
	s.sweepLocked(now)
	st := newSessionState(topic, expiry, start)
	st.detachedAt = now
	s.states[topic] = st
	return st
}

// sweepLocked forgets the detached states past ResumeTimeout or their session's expiry,
// and, past MaxSubscriptions of them, the oldest.
func (s *sessions) sweepLocked(now time.Time) {
	var oldest *sessionState
	detached := 0
	for topic, st := range s.states {
		st.mu.Lock()
		attached, at := st.conn != nil, st.detachedAt
		st.mu.Unlock()
		if attached {
			continue
		}
		if now.Sub(at) >= s.ep.cfg.ResumeTimeout || !now.Before(st.expiry) {
			delete(s.states, topic)
			continue
		}
		detached++
		if oldest == nil || at.Before(oldest.detachedAt) {
			oldest = st
		}
	}
	if detached >= s.ep.cfg.MaxSubscriptions && oldest != nil {
		delete(s.states, oldest.topic)
	}
}

// attach makes conn the session's stream on this replica, taking over a state held here
// and asking every other replica to hand theirs over (their streams end). With a lastID of
// another lineage than this replica's, it waits up to sessionAckTimeout for the handover,
// to replay from it. It returns the state and the position to write from, and the reason
// it cannot replay ("" when it can, or when nothing was asked).
func (s *sessions) attach(topic string, expiry time.Time, start fastmcp.LogLevel, lastID string, conn *sessionConn) (*sessionState, uint64, string) {
	n := newNonce()
	now := time.Now()
	ch := make(chan []byte, 4)
	s.mu.Lock()
	st := s.states[topic]
	if st == nil {
		s.sweepLocked(now)
		if l, ok := s.levels.get(topic, now); ok {
			start = fastmcp.LogLevel(l)
		}
		st = newSessionState(topic, expiry, start)
		s.states[topic] = st
	}
	st.mu.Lock()
	old := st.conn
	st.conn, st.attachNonce = conn, n
	lineage, from := st.lineage, st.next
	st.mu.Unlock()
	lastLineage, lastSeq, parsed := parseEventID(lastID)
	wait := lastID != "" && (!parsed || lastLineage != lineage)
	if wait {
		s.waiters[n] = ch
	}
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
	s.publish(topic, append(append([]byte{opAttach}, n[:]...), lastID...))
	if lastID == "" {
		return st, st.startNow(), ""
	}
	reason := ""
	if wait {
		reason = reasonUnknown
		t := time.NewTimer(sessionAckTimeout)
	loop:
		for {
			select {
			case a := <-ch:
				var w stateWire
				if a[0] != opState || json.Unmarshal(a[1:], &w) != nil {
					continue
				}
				st.merge(w, s.ep.cfg.MaxSessionSubscriptions)
				if parsed && w.Lineage == lastLineage {
					st.adopt(w, from, lastSeq, s.ep.cfg.MaxReplayEvents)
					reason = ""
					break loop
				}
			case <-t.C:
				break loop
			}
		}
		t.Stop()
		s.mu.Lock()
		delete(s.waiters, n)
		s.mu.Unlock()
		if reason != "" {
			return st, st.startNow(), reason
		}
	}
	if !st.canReplayAfter(lastSeq) {
		return st, st.startNow(), reasonWindow
	}
	return st, st.startAfter(lastSeq), ""
}

// detach marks conn's stream ended: the state stays, detached, for ResumeTimeout.
func (s *sessions) detach(st *sessionState, conn *sessionConn) {
	st.mu.Lock()
	if st.conn == conn {
		st.conn = nil
		st.detachedAt = time.Now()
	}
	st.mu.Unlock()
}
