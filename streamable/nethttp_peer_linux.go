//go:build linux

package streamable

import (
	"syscall"

	"golang.org/x/sys/unix"
)

const canProbePeer = true

// peerClosed polls the socket, without waiting and without reading, for POLLRDHUP (the peer
// shut down its side: its FIN arrived, even behind unread bytes), POLLHUP or POLLERR. It
// takes no read lock, so it never competes with net/http's own reads.
func peerClosed(raw syscall.RawConn) bool {
	var gone bool
	err := raw.Control(func(fd uintptr) {
		fds := [1]unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		n, err := unix.Poll(fds[:], 0)
		gone = err == nil && n > 0 && fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
	})
	return gone || err != nil // Control fails once the connection is closed
}
