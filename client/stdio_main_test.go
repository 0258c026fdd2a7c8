package client

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// IgnoreCurrent covers the default pool that ants starts when imported.
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}
