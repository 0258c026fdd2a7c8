// Package sealstate seals and opens the requestState token of MCP multi
// round-trip requests (MRTR, revision 2026-07-28).
//
// A server that answers tools/call, prompts/get or resources/read with an
// input_required result may put its own state in requestState; the client
// echoes the string unchanged when it retries the request. The string is
// attacker-controlled, so [Sealer.Seal] encrypts and authenticates it, and
// [Sealer.Open] refuses it unless it is authentic, unexpired and issued for
// the same request by the same principal.
//
// # What a token binds
//
//   - the JSON-RPC method ([Binding.Method]);
//   - a SHA-256 digest of the request's identity, the tool or prompt name or
//     resource URI, and its canonical arguments ([Binding.Digest], computed
//     with [Digest]; the caller canonicalizes the arguments and leaves out
//     _meta, requestState and inputResponses);
//   - the principal, or "" ([Binding.Principal]);
//   - an expiry, at millisecond resolution;
//   - the handler's opaque payload ([State.Payload]), which is returned by Open.
//
// # Construction
//
// Tokens are AES-256-GCM ciphertexts, so the payload is confidential as well
// as authenticated. The AES key is derived from the configured secret with
// HKDF-SHA256; a second HKDF output gives a 4-byte key id stored in the
// token, which selects the opening key without trial decryption. The format
// version and key id are authenticated as additional data. Nonces are 96-bit
// random values, so rotate a key before it seals 2^32 tokens (4 billion:
// 136 years at 1,000 input_required results per second). The binary token is
// encoded as unpadded base64url, which is a JSON string that needs no
// escaping; Open accepts only that exact spelling.
//
// # Keys and rotation
//
// [New] takes up to [MaxKeys] secrets of at least [MinKeyBytes] bytes: the
// first seals, all open. To rotate, put the new secret first, and drop the
// old one once its tokens have expired. [NewRandom] draws a random key per
// process; its tokens do not survive a restart and do not open on another
// replica, so multi-replica deployments configure shared keys.
//
// # Errors
//
// Open's errors wrap one of [ErrTooLarge], [ErrMalformed], [ErrTampered],
// [ErrExpired] or [ErrMismatch]. The MCP core answers all of them with
// JSON-RPC -32602 ("Invalid or expired request state", no data) and logs the
// sentinel, so a client learns nothing about which check failed.
//
// # Limits
//
//   - [MaxTokenBytes] (16 KiB): the encoded token. Seal fails with
//     [ErrTooLarge] rather than produce a longer one; Open refuses longer
//     input before decoding it.
//   - [DefaultTTL] (300 s) and [MaxTTL] (900 s): token lifetime, set by
//     [Config.TTL] or per token by [State.TTL]; at least 1 ms.
//   - [MinKeyBytes] (32) and [MaxKeys] (8).
//
// # Not provided
//
// Tokens can be replayed until they expire: single use needs a server-side
// record of spent tokens. Time comes from the caller (the now arguments), so
// replicas sharing keys need roughly synchronized clocks.
//
// # Example
//
//	s, err := sealstate.New(sealstate.Config{Keys: [][]byte{secret}})
//	b := sealstate.Binding{Method: "tools/call", Digest: sealstate.Digest(name, canonicalArgs), Principal: who}
//	tok, err := s.Seal(buf[:0], sealstate.State{Binding: b, Payload: state}, now)
//	// ... the client retries with requestState = string(tok) ...
//	state, err = s.Open(tok, b, now) // err wraps one of the sentinels
//
// A [Sealer] is immutable after [New]; its methods may be called from
// concurrently running goroutines.
package sealstate
