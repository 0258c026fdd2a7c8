package storetest

import (
	"os"
	"testing"
)

// ReadOnly makes the file at path unwritable to this process until t ends, as a read-only
// database file is to a server: mode 0444, and for root, whom permissions do not stop, the
// immutable attribute where the system has one (Linux: chattr +i). The test is skipped
// when the process is root and the file system refuses the attribute, since the file
// would stay writable.
func ReadOnly(t testing.TB, path string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("storetest.ReadOnly: %v", err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatalf("storetest.ReadOnly: %v", err)
	}
	t.Cleanup(func() { _ = os.Chmod(path, info.Mode().Perm()) })
	if os.Geteuid() != 0 {
		return
	}
	undo, err := immutable(path)
	if err != nil {
		t.Skipf("storetest.ReadOnly: root writes a 0444 file, and %s cannot be made immutable: %v", path, err)
	}
	t.Cleanup(undo) // before t.TempDir's removal, registered earlier
}
