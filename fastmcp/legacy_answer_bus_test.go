package fastmcp

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answerLog records the Answer events a bus carries.
type answerLog struct {
	mu     sync.Mutex
	events []Event
}

func (l *answerLog) record(e Event) {
	if e.Kind == Answer {
		l.mu.Lock()
		l.events = append(l.events, e)
		l.mu.Unlock()
	}
}

func (l *answerLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.events)
}

// replicas returns two Servers sharing one bus, and the log of the answers it carries.
func replicas(t *testing.T) (a, b *Server, bus *memBus, log *answerLog) {
	bus, log = newMemBus(), &answerLog{}
	bus.Subscribe(log.record)
	return newTestServer(t, &Config{EventBus: bus}), newTestServer(t, &Config{EventBus: bus}), bus, log
}

// waiting reports whether run is still waiting for its answers.
func waiting(run *bridgeRun) bool {
	synctest.Wait()
	select {
	case <-run.done:
		return false
	default:
		return true
	}
}

// An answer POSTed to replica b reaches the request waiting on replica a, through the bus,
// under the local rules: the principal the request was made for, its minted id, once.
func TestAnswerAcrossReplicas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b, _, log := replicas(t)
		sink := newBridgeSink()
		ctx := WithIdentity(t.Context(), &Identity{Principal: "alice"})
		run := startBridge(ctx, a, sink.client(Legacy20251125, capsNew), sink, &InputRequired{Requests: map[string]InputRequest{"r": ListRoots()}})
		id := sentID(t, <-sink.sent)

		assert.False(t, answerWith(t, b, id, "bob", ansRoots), "b holds no request")
		assert.False(t, answerWith(t, b, id, "", ansRoots))
		assert.True(t, waiting(run), "another principal's answer does not complete it")
		assert.Equal(t, 2, log.len(), "b forwarded both: only a can judge them")

		assert.False(t, answerWith(t, b, id, "alice", ansRoots), "b holds no request: it forwards")
		a1, err := run.wait(t)
		require.NoError(t, err)
		assert.Equal(t, `{"r":`+ansRoots[9:]+`}`, string(a1.results), "a kept its own copy: b's message was released")
		assert.Zero(t, a.outstandingRequests())

		assert.False(t, answerWith(t, b, id, "alice", ansRoots), "a repeated answer is dropped")
		assert.False(t, answerWith(t, a, id, "alice", ansRoots))
	})
}

// What b does not forward: ids this library never mints, answers of a request b holds itself
// (whoever sends them), answers past MaxEventData; and without a shared bus, nothing.
func TestAnswerNotForwarded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b, _, log := replicas(t)
		sink := newBridgeSink()
		ctx := WithIdentity(t.Context(), &Identity{Principal: "alice"})
		run := startBridge(ctx, a, sink.client(Legacy20251125, capsNew), sink, &InputRequired{Requests: map[string]InputRequest{"r": ListRoots()}})
		id := sentID(t, <-sink.sent)

		for _, foreign := range []string{`7`, `"x"`, `"fastmcp-short"`, `"other-AAAAAAAAAAAAAAAAAAAAAAAAAAAAA"`} {
			assert.False(t, answerWith(t, b, foreign, "alice", ansRoots), foreign)
		}
		assert.False(t, answerWith(t, a, id, "bob", ansRoots), "a holds it: another principal's answer stays local")
		huge := `"result":{"roots":[],"pad":"` + strings.Repeat("x", MaxEventData) + `"}`
		assert.False(t, answerWith(t, b, id, "alice", huge), "past MaxEventData")
		assert.Zero(t, log.len())
		assert.True(t, waiting(run))

		alone := newTestServer(t, nil)
		var tapped answerLog
		alone.Subscribe(tapped.record)
		assert.False(t, answerWith(t, alone, id, "alice", ansRoots))
		assert.Zero(t, tapped.len(), "no shared bus: an answer nobody waits for is dropped")

		require.True(t, answerWith(t, a, id, "alice", ansRoots))
		_, err := run.wait(t)
		require.NoError(t, err)
	})
}

// A forged or malformed Answer event completes nothing; a draining replica (its listen
// subscriptions closed) still gets the answers of its requests in flight.
func TestAnswerEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b, bus, _ := replicas(t)
		sink := newBridgeSink()
		ctx := WithIdentity(t.Context(), &Identity{Principal: "alice"})
		run := startBridge(ctx, a, sink.client(Legacy20251125, capsNew), sink, &InputRequired{Requests: map[string]InputRequest{"r": ListRoots()}})
		id := sentID(t, <-sink.sent)
		answer := []byte(`{"jsonrpc":"2.0","id":` + id + `,` + ansRoots + `}`)

		for _, e := range []Event{
			{Kind: Answer, Topic: answerTopic([]byte(id), "bob"), Data: answer},
			{Kind: Answer, Topic: "", Data: answer},
			{Kind: Answer, Topic: answerTopic([]byte(id), "alice"), Data: []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)},
			{Kind: Answer, Topic: answerTopic([]byte(id), "alice"), Data: []byte(`{"jsonrpc":`)},
			{Kind: SessionMessage, Topic: answerTopic([]byte(id), "alice"), Data: answer},
		} {
			bus.Publish(e)
		}
		assert.True(t, waiting(run))

		a.CloseSubscriptions() // a drains
		assert.False(t, answerWith(t, b, id, "alice", ansRoots))
		got, err := run.wait(t)
		require.NoError(t, err)
		assert.Equal(t, `{"r":`+ansRoots[9:]+`}`, string(got.results))
	})
}

// FuzzDeliverAnswer: whatever a bus carries, deliverAnswer never panics and completes a
// request only with a response of its id under the topic of its principal.
func FuzzDeliverAnswer(f *testing.F) {
	const id = `"fastmcp-AAAAAAAAAAAAAAAAAAAAAA"`
	f.Add(answerTopic([]byte(id), "alice"), []byte(`{"jsonrpc":"2.0","id":`+id+`,`+ansRoots+`}`))
	f.Add(answerTopic([]byte(id), "bob"), []byte(`{"jsonrpc":"2.0","id":`+id+`,"error":{"code":1,"message":"m"}}`))
	f.Add("", []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":"x"}`))
	f.Fuzz(func(t *testing.T, topic string, data []byte) {
		s := newTestServer(t, nil)
		round := newInputRound(1)
		require.True(t, s.outstanding.add([]string{id}, "alice", round, 1))
		s.deliverAnswer(Event{Kind: Answer, Topic: topic, Data: data})
		select {
		case <-round.done:
			if topic != answerTopic([]byte(id), "alice") {
				t.Fatalf("completed under topic %q", topic)
			}
		default:
		}
	})
}
