package storetest

import (
	"os"

	"golang.org/x/sys/unix"
)

// fsImmutableFL is FS_IMMUTABLE_FL of linux/fs.h (x/sys/unix does not define it).
const fsImmutableFL = 0x10

// immutable sets the file's immutable attribute (FS_IMMUTABLE_FL: no process, root
// included, may open it for writing); undo clears it.
func immutable(path string) (undo func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		return nil, err
	}
	if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsImmutableFL)); err != nil {
		return nil, err
	}
	return func() {
		if f, err := os.Open(path); err == nil {
			_ = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
			_ = f.Close()
		}
	}, nil
}
