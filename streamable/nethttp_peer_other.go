//go:build !linux

package streamable

import "syscall"

// canProbePeer is false where no poll flag reports a peer's shutdown behind unread bytes.
const canProbePeer = false

func peerClosed(syscall.RawConn) bool { return false }
