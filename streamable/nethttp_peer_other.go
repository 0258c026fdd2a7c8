//go:build !linux

package streamable

import "syscall"

// canProbePeer is false where no poll flag reports a peer's shutdown behind unread bytes.
// There, a Handler relies on net/http's own watch, which notices a close (or half-close)
// only while nothing further was sent; behind a further byte, a disconnect is noticed when
// the response is written. A peek could not do better: it sees the bytes, not the FIN
// behind them.
const canProbePeer = false

func peerClosed(syscall.RawConn) bool { return false }
