package fastmcp

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/sealstate"
)

// SetStateKeys replaces the requestState keys while serving: keys[0] seals from now on, every
// key opens. A state sealed under a key no longer listed is refused (-32602 "Invalid or
// expired request state"). The rules are those of [Config.StateKeys]; invalid keys are an
// error wrapping [ErrInvalidConfig], and the keys in use stay. SetStateKeys does not retain
// the slices. Requests in flight finish with the keys they started with.
//
// To rotate across replicas with no refused round-trip: add the new key second on every
// replica; once all hold it, move it first; once the old key's states have expired
// ([Config.StateTTL]), remove it.
func (s *Server) SetStateKeys(keys [][]byte) error {
	if keys == nil {
		keys = [][]byte{} // refused: nil here is no key, not a random one
	}
	sealer, err := newSealer(keys, s.cfg.StateTTL)
	if err != nil {
		return err
	}
	s.sealer.Store(sealer)
	return nil
}

// newSealer checks keys as Config.StateKeys and returns their Sealer, whose states live ttl;
// nil keys make a random per-process key.
func newSealer(keys [][]byte, ttl time.Duration) (*sealstate.Sealer, error) {
	if keys == nil {
		key := make([]byte, MinStateKeyBytes)
		_, _ = rand.Read(key) // never fails (crypto/rand documents it)
		keys = [][]byte{key}
	}
	if err := checkStateKeys(keys); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	sealer, err := sealstate.New(sealstate.Config{Keys: keys, TTL: ttl})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return sealer, nil
}

// checkStateKeys enforces the rules of Config.StateKeys, naming the key at fault.
func checkStateKeys(keys [][]byte) error {
	switch {
	case len(keys) == 0:
		return fmt.Errorf("StateKeys is empty")
	case len(keys) > MaxStateKeys:
		return fmt.Errorf("%d StateKeys, at most %d are allowed", len(keys), MaxStateKeys)
	}
	for i, k := range keys {
		if len(k) < MinStateKeyBytes {
			return fmt.Errorf("StateKeys[%d] has %d bytes, want at least %d", i, len(k), MinStateKeyBytes)
		}
		for j := range i {
			if bytes.Equal(keys[j], k) {
				return fmt.Errorf("StateKeys[%d] repeats StateKeys[%d]", i, j)
			}
		}
	}
	return nil
}
