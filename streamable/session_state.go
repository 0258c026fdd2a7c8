package streamable

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// maxReplayBytes bounds the bytes of the events one session keeps for replay, besides
// MaxReplayEvents: the oldest go first. With the subscriptions (at most
// MaxSessionSubscriptions of maxSessionURIBytes) a session's state then fits one bus event
// when another replica takes the stream over.
const maxReplayBytes = 256 << 10

// sessionState is what this replica holds of one session while it holds its GET stream,
// and for ResumeTimeout after (detached): the subscriptions, the level set by
// logging/setLevel, and the stream's latest events, numbered, for Last-Event-ID. Event ids
// are "<lineage>-<seq>": the lineage names this numbering, which moves with the state when
// another replica takes the stream over, so ids stay unique within the session.
type sessionState struct {
	topic  string
	expiry time.Time

	mu          sync.Mutex
	lineage     string
	next        uint64 // the seq of the next event
	written     uint64 // the last seq given to the attached stream to write
	ring        []replayEvent
	ringBytes   int
	subs        map[string]struct{}
	level       fastmcp.LogLevel
	levelSet    bool
	conn        *sessionConn // the attached stream, nil when detached
	detachedAt  time.Time
	attachNonce nonce // of the attach that made conn
}

type replayEvent struct {
	S uint64 `json:"s"`
	D []byte `json:"d"`
}

type nonce [16]byte

func newNonce() (n nonce) {
	_, _ = rand.Read(n[:])
	return n
}

func newLineage() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func newSessionState(topic string, expiry time.Time, level fastmcp.LogLevel) *sessionState {
	return &sessionState{topic: topic, expiry: expiry, lineage: newLineage(), next: 1, level: level, subs: map[string]struct{}{}}
}

// sessionConn is one GET stream of a session.
type sessionConn struct {
	wake chan struct{} // capacity 1: an event was added
	end  chan struct{} // closed when the stream must end (taken over, DELETE)
	once sync.Once
}

func newSessionConn() *sessionConn {
	return &sessionConn{wake: make(chan struct{}, 1), end: make(chan struct{})}
}

func (c *sessionConn) close() { c.once.Do(func() { close(c.end) }) }

func (c *sessionConn) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// add appends an event for the stream, dropping the oldest past the window; an identical
// event not yet written is not added twice (a burst of list_changed is one). It reports
// nothing: a stream that falls behind the window learns it when it next writes (gap).
func (st *sessionState) add(msg []byte, maxEvents int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := len(st.ring) - 1; i >= 0 && st.ring[i].S > st.written; i-- {
		if string(st.ring[i].D) == string(msg) {
			return
		}
	}
	st.ring = append(st.ring, replayEvent{S: st.next, D: msg})
	st.next++
	st.ringBytes += len(msg)
	drop := 0
	for len(st.ring)-drop > maxEvents || (st.ringBytes > maxReplayBytes && len(st.ring)-drop > 1) {
		st.ringBytes -= len(st.ring[drop].D)
		drop++
	}
	if drop > 0 {
		n := copy(st.ring, st.ring[drop:])
		clear(st.ring[n:])
		st.ring = st.ring[:n]
	}
	if st.conn != nil {
		st.conn.poke()
	}
}

// eventID is the SSE id of event seq of lineage.
func eventID(lineage string, seq uint64) string {
	return lineage + "-" + strconv.FormatUint(seq, 10)
}

// parseEventID splits a Last-Event-ID into lineage and seq.
func parseEventID(id string) (lineage string, seq uint64, ok bool) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(id[i+1:], 10, 64)
	return id[:i], seq, err == nil
}

// since returns the events after pos for conn to write, with the lineage that numbers
// them, whether events after pos were dropped before it could (a gap), and the next seq.
// It is empty once conn is no longer the attached stream. The events it returns count as
// written from then on: an identical event added while they are on their way is a new one,
// not folded into them.
func (st *sessionState) since(pos uint64, conn *sessionConn) (evs []replayEvent, lineage string, gap bool, next uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	lineage, next = st.lineage, st.next
	if st.conn != conn {
		return nil, lineage, false, next
	}
	if len(st.ring) > 0 && st.ring[0].S > pos+1 {
		gap = true
	} else if len(st.ring) == 0 && st.next > pos+1 {
		gap = true
	}
	for _, e := range st.ring {
		if e.S > pos {
			evs = append(evs, e)
		}
	}
	if len(evs) > 0 {
		st.written = max(st.written, evs[len(evs)-1].S)
	}
	return evs, lineage, gap, next
}

// startNow positions a stream that attaches at the session's latest event: it writes
// what follows. It returns that position.
func (st *sessionState) startNow() uint64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.written = st.next - 1
	return st.written
}

// startAfter positions a stream resuming after seq pos of the current lineage.
func (st *sessionState) startAfter(pos uint64) uint64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.written = pos
	return pos
}

// canReplayAfter reports whether every event after seq pos is still held (and pos is one
// this lineage numbered).
func (st *sessionState) canReplayAfter(pos uint64) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if pos >= st.next {
		return false
	}
	if len(st.ring) == 0 {
		return st.next == pos+1
	}
	return st.ring[0].S <= pos+1
}

// subscribe applies resources/subscribe or unsubscribe, reporting false when a subscribe
// would pass max.
func (st *sessionState) subscribe(uri string, on bool, max int) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !on {
		delete(st.subs, uri)
		return true
	}
	if _, ok := st.subs[uri]; ok {
		return true
	}
	if len(st.subs) >= max {
		return false
	}
	st.subs[uri] = struct{}{}
	return true
}

func (st *sessionState) setLevel(l fastmcp.LogLevel) {
	st.mu.Lock()
	st.level, st.levelSet = l, true
	st.mu.Unlock()
}

// offer adds e when the session wants it: every list_changed, a resources/updated of a
// subscribed URI.
func (st *sessionState) offer(e fastmcp.Event, maxEvents int) {
	switch e.Kind {
	case fastmcp.ToolsListChanged:
		st.add(msgToolsChanged, maxEvents)
	case fastmcp.PromptsListChanged:
		st.add(msgPromptsChanged, maxEvents)
	case fastmcp.ResourcesListChanged:
		st.add(msgResourcesChanged, maxEvents)
	case fastmcp.ResourceUpdated:
		st.mu.Lock()
		_, ok := st.subs[e.URI]
		st.mu.Unlock()
		if ok {
			st.add(resourceUpdated(e.URI), maxEvents)
		}
	}
}

// offerLog adds a notification published for the session, a log message only at or above
// its level (level is sessionNotLog for another notification).
func (st *sessionState) offerLog(level int8, msg []byte, maxEvents int) {
	if level != sessionNotLog {
		st.mu.Lock()
		cur := st.level
		st.mu.Unlock()
		if cur == fastmcp.LogOff || fastmcp.LogLevel(level) < cur {
			return
		}
	}
	st.add(append([]byte(nil), msg...), maxEvents)
}

// resync is what a stream writes after a gap: a warning naming what it missed (unless the
// level is above warning), every list_changed, and a resources/updated of every
// subscription, so the client re-reads what it may have missed.
func (st *sessionState) resync(lastID, reason string) [][]byte {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out [][]byte
	if st.level != fastmcp.LogOff && st.level <= fastmcp.LogWarning {
		out = append(out, replayWarning(lastID, reason))
	}
	out = append(out, msgToolsChanged, msgPromptsChanged, msgResourcesChanged)
	for uri := range st.subs {
		out = append(out, resourceUpdated(uri))
	}
	return out
}

var (
	msgToolsChanged     = []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	msgPromptsChanged   = []byte(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`)
	msgResourcesChanged = []byte(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`)
)

func resourceUpdated(uri string) []byte {
	msg := append([]byte(nil), `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":`...)
	msg = decode.AppendString(msg, uri, false)
	return append(msg, `}}`...)
}

// The reasons a resume cannot replay, in the warning's message.
const (
	reasonWindow  = "they are older than the replay window"
	reasonUnknown = "no replica holds that stream any more"
)

// replayWarning is the notifications/message a resumed stream starts with when it cannot
// replay what followed lastID.
func replayWarning(lastID, reason string) []byte {
	msg := append([]byte(nil), `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"mcp-session","data":{"message":`...)
	msg = decode.AppendString(msg, "Events after Last-Event-ID could not be replayed: "+reason+"; re-list and re-read what you need", false)
	msg = append(msg, `,"lastEventId":`...)
	msg = decode.AppendString(msg, lastID, false)
	return append(msg, `}}}`...)
}

// stateWire is a session's state handed to the replica that takes its stream over.
type stateWire struct {
	Lineage  string        `json:"lineage"`
	Next     uint64        `json:"next"`
	Level    int8          `json:"level"`
	LevelSet bool          `json:"levelSet,omitempty"`
	Subs     []string      `json:"subs,omitempty"`
	Ring     []replayEvent `json:"ring,omitempty"`
}

// snapshot returns st's state for a handover.
func (st *sessionState) snapshot() stateWire {
	st.mu.Lock()
	defer st.mu.Unlock()
	w := stateWire{Lineage: st.lineage, Next: st.next, Level: int8(st.level), LevelSet: st.levelSet, Ring: st.ring}
	for uri := range st.subs {
		w.Subs = append(w.Subs, uri)
	}
	return w
}

// merge takes a handed-over state's settings in: its subscriptions (up to max) and its
// level, unless one was set here.
func (st *sessionState) merge(w stateWire, maxSubs int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, uri := range w.Subs {
		if len(st.subs) >= maxSubs {
			break
		}
		st.subs[uri] = struct{}{}
	}
	if w.LevelSet && !st.levelSet {
		st.level, st.levelSet = fastmcp.LogLevel(w.Level), true
	}
}

// adopt takes a handed-over state's numbering and events for a stream resuming after seq
// pos of its lineage. This state's events from seq from on (those it gathered since the
// stream attached here, which the other replica may not have had) follow, unless the same
// event is already waiting after pos; its earlier ones were the other replica's too.
func (st *sessionState) adopt(w stateWire, from, pos uint64, maxEvents int) {
	st.mu.Lock()
	var pending [][]byte
	for _, e := range st.ring {
		if e.S >= from {
			pending = append(pending, e.D)
		}
	}
	st.lineage, st.next, st.written = w.Lineage, w.Next, pos
	st.ring, st.ringBytes = nil, 0
	for _, e := range w.Ring {
		st.ring = append(st.ring, e)
		st.ringBytes += len(e.D)
	}
	st.mu.Unlock()
	for _, msg := range pending {
		st.add(msg, maxEvents)
	}
}
