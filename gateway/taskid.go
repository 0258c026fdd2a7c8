package gateway

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"sync/atomic"
)

// The task ids the Gateway gives its callers name the backend and the backend's own task
// id, and are bound to the caller: every caller reaches a backend with the Gateway's one
// credential, so the backend cannot tell them apart, and a caller must not reach another's
// task by its id. An id is
//
//	MAC "." backend "." backend's task id
//
// the MAC (HMAC-SHA256 of the caller's principal, the backend and its id, under the first
// of TaskIDKeys, 16 bytes in base64url) checked under every key; one that fails reads as an
// unknown task. No replica keeps anything: any replica holding the keys serves the task.

const (
	// MinTaskIDKeyBytes is the shortest key of Config.TaskIDKeys.
	MinTaskIDKeyBytes = 32
	// maxBackendTaskID bounds a backend's task id the Gateway carries (longer: malformed).
	maxBackendTaskID = 256
	taskMACBytes     = 16
)

// taskIDs holds the keys; the first signs.
type taskIDs struct{ keys atomic.Pointer[[][]byte] }

// SetTaskIDKeys replaces Config.TaskIDKeys while serving (nil: a random key): the first
// signs from now on, every one verifies, so a rotation adds the new key second, then moves
// it first. Keys shorter than MinTaskIDKeyBytes are an error wrapping ErrInvalidConfig.
func (g *Gateway) SetTaskIDKeys(keys [][]byte) error {
	if keys == nil {
		k := make([]byte, MinTaskIDKeyBytes)
		_, _ = rand.Read(k)
		keys = [][]byte{k}
	}
	if len(keys) == 0 {
		return fmt.Errorf("%w: TaskIDKeys is empty", ErrInvalidConfig)
	}
	own := make([][]byte, len(keys))
	for i, k := range keys {
		if len(k) < MinTaskIDKeyBytes {
			return fmt.Errorf("%w: TaskIDKeys[%d] has %d bytes, want at least %d", ErrInvalidConfig, i, len(k), MinTaskIDKeyBytes)
		}
		own[i] = append([]byte(nil), k...)
	}
	g.taskIDs.keys.Store(&own)
	return nil
}

func taskMAC(key []byte, principal, backend, id string) []byte {
	m := hmac.New(sha256.New, key)
	for _, part := range []string{principal, backend, id} {
		fmt.Fprintf(m, "%d:%s;", len(part), part)
	}
	return m.Sum(nil)[:taskMACBytes]
}

// issue is the id a caller (principal) gets for backend's task id.
func (t *taskIDs) issue(principal, backend, id string) string {
	key := (*t.keys.Load())[0]
	return base64.RawURLEncoding.EncodeToString(taskMAC(key, principal, backend, id)) + "." + backend + "." + id
}

// open returns the backend and its task id that id names for principal; false when id is
// not one this Gateway's keys issued to principal.
func (t *taskIDs) open(principal, id string) (backend, own string, ok bool) {
	mac64, rest, ok1 := strings.Cut(id, ".")
	backend, own, ok2 := strings.Cut(rest, ".")
	mac, err := base64.RawURLEncoding.DecodeString(mac64)
	if !ok1 || !ok2 || err != nil || len(mac) != taskMACBytes || own == "" {
		return "", "", false
	}
	for _, key := range *t.keys.Load() {
		if hmac.Equal(mac, taskMAC(key, principal, backend, own)) {
			return backend, own, true
		}
	}
	return "", "", false
}

// carriedTaskID reports whether a backend's task id can be carried in the Gateway's: at most
// maxBackendTaskID bytes of visible ASCII (it travels in the Mcp-Name header too).
func carriedTaskID(id string) bool {
	if id == "" || len(id) > maxBackendTaskID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] >= 0x7f {
			return false
		}
	}
	return true
}
