package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Every request id the client sends is a positive integer; requestID reads it back from a
// request the core built, so transports can match responses without parsing JSON.
func requestID(req []byte) []byte {
	const prefix = `{"jsonrpc":"2.0","id":`
	if !bytes.HasPrefix(req, []byte(prefix)) {
		return nil
	}
	rest := req[len(prefix):]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	return rest[:i]
}

// isResponseTo reports whether msg is a response (no method) whose id is the integer id.
// A quick scan: the core decodes the message fully afterwards.
func isResponseTo(msg, id []byte) bool {
	v := decode.Lookup(msg, "id")
	if v.Type() != decode.TypeInteger || !bytes.Equal(v.Raw(), id) {
		return false
	}
	return !decode.Lookup(msg, "method").Present()
}

// appendRequest appends {"jsonrpc":"2.0","id":id,"method":method,"params":{members,"_meta":…}}.
// members is a list of object members without braces (may be empty); meta is the _meta object
// without its closing brace (may be empty), progress a progress token to add (0: none).
func appendRequest(dst []byte, id int64, method string, members, meta []byte, progress int64) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"method":`...)
	dst = decode.AppendString(dst, method, false)
	dst = append(dst, `,"params":{`...)
	dst = append(dst, members...)
	if len(meta) > 0 || progress > 0 {
		if len(members) > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `"_meta":`...)
		if len(meta) > 0 {
			dst = append(dst, meta...)
		} else {
			dst = append(dst, '{')
		}
		if progress > 0 {
			if len(meta) > 1 {
				dst = append(dst, ',')
			}
			dst = append(dst, `"progressToken":`...)
			dst = strconv.AppendInt(dst, progress, 10)
		}
		dst = append(dst, '}')
	}
	return append(dst, "}}"...)
}

// appendNotification appends a notification with the given params object.
func appendNotification(dst []byte, method string, params []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":`...)
	dst = decode.AppendString(dst, method, false)
	if len(params) > 0 {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

// response is a decoded response: result (raw, borrowed from the response bytes) or err.
type response struct {
	result []byte
	err    *Error
}

// msgPool keeps decoded Messages, whose scratch buffers make the next decode allocation-free.
var msgPool = sync.Pool{New: func() any { return new(decode.Message) }}

// parseResponse decodes a response to the request with integer id.
func (c *Client) parseResponse(b, id []byte) (response, error) {
	m := msgPool.Get().(*decode.Message)
	defer msgPool.Put(m)
	if err := c.dec.Decode(m, b); err != nil {
		return response{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if m.Kind() != decode.KindResponse {
		return response{}, fmt.Errorf("%w: a %s where a response was expected", ErrMalformed, m.Kind())
	}
	got := m.ID()
	if e := m.Error(); e.Present() {
		// An error answers this request when it carries its id, or null (the server could
		// not read the id): one for another request is not this call's.
		if id != nil && got.Type() != decode.TypeNull && (got.Type() != decode.TypeInteger || !bytes.Equal(got.Raw(), id)) {
			return response{}, fmt.Errorf("%w: error response id %s, want %s", ErrMalformed, got.Raw(), id)
		}
		if e.Type() != decode.TypeObject {
			return response{}, fmt.Errorf("%w: error is not an object", ErrMalformed)
		}
		re := &Error{}
		if err := json.Unmarshal(e.Raw(), re); err != nil {
			return response{}, fmt.Errorf("%w: error object: %v", ErrMalformed, err)
		}
		return response{err: re}, nil
	}
	if id != nil && (got.Type() != decode.TypeInteger || !bytes.Equal(got.Raw(), id)) {
		return response{}, fmt.Errorf("%w: response id %s, want %s", ErrMalformed, got.Raw(), id)
	}
	r := m.Result()
	if r.Type() != decode.TypeObject {
		return response{}, fmt.Errorf("%w: result is not an object", ErrMalformed)
	}
	return response{result: r.Raw()}, nil
}

// rpcError reads the JSON-RPC error of an *HTTPError's body into its Err, for the
// request with integer id. A body that is not an error response for it stays only Body.
func (c *Client) rpcError(err error, id []byte) error {
	var he *HTTPError
	if errors.As(err, &he) && he.rpc != nil {
		if r, perr := c.parseResponse(he.rpc, id); perr == nil && r.err != nil {
			he.Err = r.err
		}
		he.rpc = nil
	}
	return err
}

// text returns the string member key of obj unescaped ("" when absent or not a string).
func text(obj []byte, key string) string {
	v := decode.Lookup(obj, key)
	if v.Type() != decode.TypeString {
		return ""
	}
	if t := v.Text(); t != nil || len(v.Raw()) == 2 {
		return string(t)
	}
	return string(decode.Unquote(nil, v.Raw()))
}
