package sealstate

import "time"

// Limits and defaults.
const (
	// MinKeyBytes is the shortest key [New] accepts.
	MinKeyBytes = 32
	// MaxKeys is the largest number of keys in [Config.Keys].
	MaxKeys = 8
	// DefaultTTL is the token lifetime when [Config.TTL] is zero.
	DefaultTTL = 300 * time.Second
	// MaxTTL is the longest lifetime [Config.TTL] or [State.TTL] may ask for.
	MaxTTL = 900 * time.Second
	// MaxTokenBytes bounds the encoded token, the requestState string.
	MaxTokenBytes = 16 << 10 // 16 KiB
)

// Config configures a [Sealer].
type Config struct {
	// Keys are the secret keys, each at least MinKeyBytes long and
	// preferably uniformly random. Keys[0] seals; every key opens, which
	// allows rotation: put the new key first, and drop the old one once
	// tokens it sealed have expired (MaxTTL after the switch at most).
	// At least one key and at most MaxKeys are required. Keys must be
	// unique. New does not retain the slices.
	Keys [][]byte

	// TTL is how long a sealed token stays valid, at millisecond
	// resolution. If zero, DefaultTTL is used. Otherwise it must be between
	// 1ms and MaxTTL.
	TTL time.Duration
}
