//go:build !unix

package stdio

import "os"

// takeStdout gives Serve the process's standard output for protocol messages and points
// the os.Stdout variable at standard error while Serve runs. On these systems the file
// handle itself is not redirected: code that writes to it other than through os.Stdout
// still reaches the protocol stream.
func takeStdout() (out *os.File, restore func(), err error) {
	stdoutOwner.Lock()
	defer stdoutOwner.Unlock()
	if stdoutOwner.taken {
		return nil, nil, ErrStdoutInUse
	}
	stdoutOwner.taken = true
	out = os.Stdout
	os.Stdout = os.Stderr
	return out, func() {
		stdoutOwner.Lock()
		defer stdoutOwner.Unlock()
		os.Stdout = out
		stdoutOwner.taken = false
	}, nil
}
