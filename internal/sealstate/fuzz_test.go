package sealstate

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"
	"time"
)

// FuzzOpen feeds arbitrary tokens and bindings to Open. It must never panic,
// must classify every refusal under exactly one sentinel, and must accept
// only tokens this process sealed, with their own binding and payload.
//
// The keys are random per process: a fuzzing worker cannot know the tokens
// another process sealed, so "sealed by this process" is the ground truth.
// Mode 1 starts from a token sealed here and applies the fuzzer's edits
// (byte XORs, then appended bytes); it is accepted only if the edits cancel
// out.
func FuzzOpen(f *testing.F) {
	s, err := New(Config{Keys: [][]byte{randomKey(), randomKey()}})
	if err != nil {
		f.Fatal(err)
	}
	states := []State{
		testState,
		{Binding: Binding{Method: "resources/read", Digest: Digest("file:///x", nil)}, Payload: []byte{}},
		{Binding: Binding{Method: "prompts/get", Principal: "bob"}, Payload: bytes.Repeat([]byte{7}, 300)},
	}
	var tokens [][]byte
	sealed := make(map[string]State)
	for _, st := range states {
		tok := seal(f, s, st, testNow)
		tokens = append(tokens, tok)
		sealed[string(tok)] = st
		f.Add(byte(0), tok, []byte(nil), st.Method, st.Principal)
		f.Add(byte(0), tok[:len(tok)-4], []byte(nil), st.Method, st.Principal)
	}
	for i := range states {
		f.Add(byte(1|i<<1), []byte(nil), []byte(nil), "", "")
		f.Add(byte(1|i<<1), []byte(nil), []byte{5, 1}, "", "")
		f.Add(byte(1|i<<1), []byte("AAAA"), []byte{200, 0x80}, "", "")
	}
	f.Add(byte(0), []byte(""), []byte(nil), "", "")
	f.Add(byte(0), bytes.Repeat([]byte("A"), 120), []byte(nil), "tools/call", "")
	f.Add(byte(0), []byte("not base64!"), []byte(nil), "tools/call", "")
	sentinels := []error{ErrTooLarge, ErrMalformed, ErrTampered, ErrExpired, ErrMismatch}

	f.Fuzz(func(t *testing.T, mode byte, data, edits []byte, method, principal string) {
		var token []byte
		var want Binding
		if mode&1 == 0 {
			token = data
			want = Binding{Method: method, Principal: principal}
			switch (mode >> 1) % 3 { // make a seeded digest reachable
			case 0:
				want.Digest = states[0].Digest
			case 1:
				want.Digest = states[1].Digest
			}
		} else {
			i := int(mode>>1) % len(tokens)
			token = bytes.Clone(tokens[i])
			for j := 0; j+1 < len(edits); j += 2 {
				token[int(edits[j])%len(token)] ^= edits[j+1]
			}
			token = append(token, data...)
			want = states[i].Binding
		}
		in := bytes.Clone(token)
		payload, err := s.Open(token, want, testNow)
		if !bytes.Equal(in, token) {
			t.Fatal("Open modified the token")
		}
		if err != nil {
			if payload != nil {
				t.Fatal("payload with an error")
			}
			n := 0
			for _, e := range sentinels {
				if errors.Is(err, e) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("error %q matches %d sentinels", err, n)
			}
			return
		}
		st, ok := sealed[string(token)]
		if !ok {
			t.Fatalf("accepted a token it did not seal: %q", token)
		}
		if st.Binding != want || !bytes.Equal(st.Payload, payload) {
			t.Fatalf("accepted %q for %+v, sealed for %+v", token, want, st.Binding)
		}
	})
}

func randomKey() []byte {
	k := make([]byte, MinKeyBytes)
	_, _ = rand.Read(k)
	return k
}

// FuzzSeal checks that any state round-trips and that changing one field of
// the binding is refused as a mismatch.
func FuzzSeal(f *testing.F) {
	s := newTestSealer(f)
	f.Add("tools/call", "deploy", []byte(`{"env":"prod"}`), "alice", []byte(`{"step":1}`), int64(0))
	f.Add("", "", []byte(nil), "", []byte(nil), int64(time.Second))
	f.Fuzz(func(t *testing.T, method, identity string, args []byte, principal string, payload []byte, ttl int64) {
		st := State{
			Binding: Binding{Method: method, Digest: Digest(identity, args), Principal: principal},
			Payload: payload,
			TTL:     time.Duration(ttl),
		}
		tok, err := s.Seal(nil, st, testNow)
		if err != nil {
			if !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrInvalidTTL) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if len(tok) > MaxTokenBytes {
			t.Fatalf("token of %d bytes", len(tok))
		}
		got, err := s.Open(tok, st.Binding, testNow)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("round trip: %v", err)
		}
		other := st.Binding
		other.Principal += "x"
		if _, err := s.Open(tok, other, testNow); !errors.Is(err, ErrMismatch) {
			t.Fatalf("changed principal: %v", err)
		}
	})
}
