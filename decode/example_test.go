package decode_test

import (
	"errors"
	"fmt"

	"github.com/fastmcp-go/fastmcp/decode"
)

func Example() {
	body := []byte(`{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hi"}}}`)

	var m decode.Message
	if err := decode.Decode(&m, body); err != nil {
		panic(err)
	}
	fmt.Println(m.Kind(), m.Method().String(), m.Name().String(), string(m.Arguments().Raw()))

	reply := decode.AppendResult(nil, m.ID().Raw(), []byte(`{"resultType":"complete"}`))
	fmt.Println(string(reply))
	// Output:
	// request tools/call echo {"text":"hi"}
	// {"jsonrpc":"2.0","id":"req-1","result":{"resultType":"complete"}}
}

func Example_errors() {
	var m decode.Message
	err := decode.Decode(&m, []byte(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`))
	var de *decode.Error
	if errors.As(err, &de) {
		var id []byte // null unless the id may be echoed
		if m.IDEchoable() {
			id = m.ID().Raw()
		}
		fmt.Println(string(decode.AppendError(nil, id, int64(de.Code), de.Message, nil, false)))
	}
	// Output:
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be an integer, not a fraction"}}
}
