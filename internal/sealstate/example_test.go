package sealstate_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/sealstate"
)

func Example() {
	sealer, err := sealstate.New(sealstate.Config{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, // use a random secret
	})
	if err != nil {
		panic(err)
	}
	now := time.Now()

	// Round 1: the handler needs input; seal its state into requestState.
	binding := sealstate.Binding{
		Method:    "tools/call",
		Digest:    sealstate.Digest("deploy", []byte(`{"env":"prod"}`)),
		Principal: "user:alice",
	}
	token, err := sealer.Seal(nil, sealstate.State{Binding: binding, Payload: []byte("step 2")}, now)
	if err != nil {
		panic(err)
	}

	// Round 2: the client echoes requestState with the same request.
	payload, err := sealer.Open(token, binding, now.Add(time.Second))
	fmt.Printf("%s %v\n", payload, err)

	// Different arguments: refused.
	binding.Digest = sealstate.Digest("deploy", []byte(`{"env":"dev"}`))
	_, err = sealer.Open(token, binding, now.Add(time.Second))
	fmt.Println(errors.Is(err, sealstate.ErrMismatch), err)
	// Output:
	// step 2 <nil>
	// true sealstate: token does not match the request: request digest
}
