//go:build unix

package stdio

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// takeStdout gives Serve the process's standard output for protocol messages. It
// duplicates file descriptor 1 for Serve's own use, then points descriptor 1 at standard
// error, so that whatever else writes to standard output while Serve runs (os.Stdout,
// fmt.Print, a logger configured for stdout, C code, child processes that inherit it) lands
// on standard error instead of corrupting the stream. restore points descriptor 1 back at
// the real standard output and closes the duplicate.
func takeStdout() (out *os.File, restore func(), err error) {
	stdoutOwner.Lock()
	defer stdoutOwner.Unlock()
	if stdoutOwner.taken {
		return nil, nil, ErrStdoutInUse
	}
	fd, err := unix.Dup(unix.Stdout)
	if err != nil {
		return nil, nil, fmt.Errorf("stdio: duplicating standard output: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(unix.Stderr, unix.Stdout); err != nil {
		_ = unix.Close(fd)
		return nil, nil, fmt.Errorf("stdio: pointing standard output at standard error: %w", err)
	}
	stdoutOwner.taken = true
	out = os.NewFile(uintptr(fd), "/dev/stdout")
	return out, func() {
		stdoutOwner.Lock()
		defer stdoutOwner.Unlock()
		_ = unix.Dup2(fd, unix.Stdout)
		_ = out.Close()
		stdoutOwner.taken = false
	}, nil
}
