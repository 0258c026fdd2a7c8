//go:build !unix

package stdio

import "time"

// cpuTime is not measured on these systems.
func cpuTime() time.Duration { return 0 }
