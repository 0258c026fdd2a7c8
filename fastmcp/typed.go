package fastmcp

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"

	sonicdec "github.com/bytedance/sonic/decoder"

	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

// typedHandlers returns the raw handlers of a typed tool: call decodes the arguments (already
// validated) into In, and checked, given the compiled input schema, may return a handler that
// validates them in the same walk (see toolEntry.checked), or nil.
//
// A flat struct is decoded by its plan when it can be; otherwise, and whenever the plan is
// unsure, sonic decodes into a pooled value copied out, so a call allocates no In. Arguments
// the Go type cannot hold are an isError result worded like a schema failure.
func typedHandlers[In any](h ToolHandler[In]) (call RawToolHandler, checked func(*jsonschema.Schema) RawToolHandler) {
	plan := newArgPlan(reflect.TypeFor[In]())
	inputs := sync.Pool{New: func() any { return new(In) }}
	call = func(ctx context.Context, r *Request, args json.RawMessage) (ToolResult, error) {
		var in, zero In
		if plan != nil && plan.decode(args, unsafe.Pointer(&in)) {
			return h(ctx, r, in)
		}
		p := inputs.Get().(*In)
		err := decodeInto(args, p)
		in = *p
		*p = zero // drop references before pooling
		inputs.Put(p)
		if err != nil {
			return invalidArguments(err), nil
		}
		return h(ctx, r, in)
	}
	checked = func(input *jsonschema.Schema) RawToolHandler {
		fo, ok := input.FlatObject()
		if plan == nil || !ok {
			return nil
		}
		cp := plan.checking(fo)
		if cp == nil {
			return nil
		}
		return func(ctx context.Context, r *Request, args json.RawMessage) (ToolResult, error) {
			var in In
			if cp.decode(args, unsafe.Pointer(&in)) {
				return h(ctx, r, in)
			}
			// Unsure: validate, then decode, as for any tool.
			if err := input.ValidateDecodedContext(ctx, args); err != nil {
				if isCancellation(err) {
					return ToolResult{}, err
				}
				return invalidArguments(err), nil
			}
			return call(ctx, r, args)
		}
	}
	return call, checked
}

// decodeInto decodes tool arguments into *p (zeroed first) by the general path: sonic, and
// once more with integer-valued numbers written as plain integers when sonic refuses (1e2
// into an int field; see argerr.go). A failure is a *jsonschema.ValidationError in the
// validator's words, never sonic's text.
func decodeInto[In any](args []byte, p *In) error {
	var zero In
	*p = zero
	err := unmarshalArguments(args, p)
	if err == nil {
		return nil
	}
	decoded := args
	if alt, ok := plainIntegers(args); ok {
		*p = zero
		if err = unmarshalArguments(alt, p); err == nil {
			return nil
		}
		decoded = alt
	}
	*p = zero
	return argumentsError(args, decoded, err)
}

// argDecoders are sonic decoders for tool arguments, reused across calls.
var argDecoders = sync.Pool{New: func() any { return new(sonicdec.Decoder) }}

// unmarshalArguments decodes tool arguments with sonic: case-sensitive field names (so
// "Text" cannot stand in for "text"), strings referencing one private copy of the arguments
// made per call, so handlers may keep them.
func unmarshalArguments(args json.RawMessage, v any) error {
	d := argDecoders.Get().(*sonicdec.Decoder)
	d.Reset(string(args))
	d.SetOptions(sonicdec.OptionCaseSensitive)
	err := d.Decode(v)
	if err == nil {
		err = d.CheckTrailings()
	}
	d.Reset("")
	argDecoders.Put(d)
	return err
}
