package fastmcp

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Answers across replicas. An initialize-era client POSTs its answer to a server-to-client
// request to whichever replica the load balancer picks. When that replica has no request with
// the id, and the Server has a shared [Config.EventBus], it publishes the answer as an
// [Answer] event; every replica sharing the bus gets it, and the one whose handler waits for
// the id delivers it exactly as a local answer. The rules are the local ones: the id must be
// outstanding and the answer must come with the principal the request was made for, which the
// event's Topic binds (see answerTopic); anything else is dropped and the request keeps
// waiting, until its own deadline.

// mintedIDLen is the length of the id literals mintID makes: the quotes, the prefix and 22
// base64url characters. Only ids of this shape are forwarded.
const mintedIDLen = 2 + len(requestIDPrefix) + 22

// answerTopic names the request id (a JSON literal) for principal: the hex SHA-256 of both.
// It lets the waiting replica check the principal without the bus carrying it.
func answerTopic(id []byte, principal string) string {
	h := sha256.New()
	h.Write([]byte("fastmcp answer v1\x00"))
	h.Write(id)
	h.Write([]byte{0})
	h.Write([]byte(principal))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// forwardAnswer publishes m, the answer to a request this Server does not hold, for the
// replica that does. It publishes nothing without a shared bus, for an id this library could
// not have minted, or for a message longer than MaxEventData (the waiting request then runs
// to its deadline).
func (s *Server) forwardAnswer(m *decode.Message, id []byte, principal string) {
	if s.cfg.EventBus == nil || len(id) != mintedIDLen || !bytes.HasPrefix(id[1:], []byte(requestIDPrefix)) {
		return
	}
	src := m.Source()
	if len(src) > MaxEventData {
		s.cfg.Logger.Warn("fastmcp: an answer too large to forward to another replica was dropped", "bytes", len(src), "limit", MaxEventData)
		return
	}
	s.bus.Publish(Event{Kind: Answer, Topic: answerTopic(id, principal), Data: bytes.Clone(src)})
}

// subscribeAnswers subscribes deliverAnswer to a configured EventBus the first time it is
// called, and holds the subscription for the Server's life: not through the hub, which
// CloseSubscriptions unsubscribes, so that a draining replica's requests in flight still get
// their answers.
func (s *Server) subscribeAnswers() {
	if s.cfg.EventBus == nil {
		return
	}
	s.answersOnBus.Do(func() { s.cfg.EventBus.Subscribe(s.deliverAnswer) })
}

// deliverAnswer is the Server's subscription to its bus: an Answer event for a request this
// Server holds, made for the principal its Topic names, is delivered to the request's round.
// Anything else is ignored. It never blocks.
func (s *Server) deliverAnswer(e Event) {
	if e.Kind != Answer || len(e.Data) > MaxEventData {
		return
	}
	var m decode.Message
	if s.decoder.Decode(&m, e.Data) != nil || m.Kind() != decode.KindResponse {
		return
	}
	id := m.ID()
	if id.Type() != decode.TypeString {
		return
	}
	principal, ok := s.outstanding.principal(id.Raw())
	if !ok || subtle.ConstantTimeCompare([]byte(answerTopic(id.Raw(), principal)), []byte(e.Topic)) != 1 {
		return
	}
	if p, _ := s.outstanding.take(id.Raw(), principal); p != nil {
		p.round.deliver(p.slot, &m)
	}
}
