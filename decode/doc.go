// Package decode turns one JSON-RPC 2.0 message (an HTTP body or a stdio line) into a
// borrowed, zero-copy view, validating the whole message in a single linear pass, and
// encodes JSON-RPC envelopes.
//
// # Decoding
//
// [Decoder.Decode] fills a reusable [Message]: the [Kind] (request, notification, response,
// batch, invalid), the id as its exact literal bytes (so a reply echoes it byte for byte), the
// method, the raw params, and the params members the MCP core reads on every request (_meta
// and, in it, protocolVersion, clientCapabilities, clientInfo, logLevel, progressToken and
// trace context; name, uri, arguments, cursor, inputResponses, requestState). Every view is
// borrowed from the input: it is valid until that buffer is reused (for an HTTP body, until
// the handler returns) or the Message is decoded again. [Message.CopyTo] makes an owned copy
// for work that outlives the buffer. A pooled Message decodes without allocating.
//
//	var m decode.Message
//	if err := decode.Decode(&m, body); err != nil {
//		var de *decode.Error
//		errors.As(err, &de) // de.Code is -32700, -32600 or -32602
//	}
//	switch string(m.Method().Text()) { ... }
//
// [Lookup], [Members], [Elements] and [ValueOf] read further into a value Decode accepted
// (params, a result), without a second validation. A string [Value]'s Text is its unescaped
// content wherever the Value comes from, so `"\u0041bc"` reads "Abc" from Lookup as from
// Decode: a view of the input when the string has no escapes (no allocation); with escapes,
// Decode unescapes into the Message's reusable buffer, and Lookup and ValueOf into a buffer of
// the Value's own (one allocation).
//
// # Limits
//
// Every transport gets the same content limits, each with the JSON-RPC error a client sees:
//
//   - MaxMessageBytes (default 2,000,000): -32600 "Invalid Request: message exceeds the
//     maximum size".
//   - An integer literal (the integer part of any number) longer than 64 digits, sign not
//     counted, anywhere in the message: -32700 "Parse error: integer literal exceeds 64
//     digits". The scan stops at digit 65, so a 2,000,000-digit literal costs nothing more.
//   - MaxDepth (default 128) levels of nested arrays and objects: -32700 "Parse error:
//     nesting exceeds the maximum depth".
//   - Request id: a string of at most 256 bytes (unescaped) or an integer in the int64 range;
//     otherwise -32600 and the reply carries a null id, never the bad value. A fractional id
//     (1.5, 1e3) is -32600 too.
//   - progressToken: the same bounds, -32602.
//   - Strings are valid UTF-8 with no raw control characters and no lone surrogate escapes:
//     -32700. Trailing data after the value: -32700.
//   - A duplicate key in the envelope is -32600, and anywhere inside params -32602 (keys
//     compare after unescaping), so two readers of one message never see different values.
//   - params must be an object: -32602. A JSON array is reported as [KindBatch] with -32600.
//
// When several rules are broken, a parse error wins over an invalid request, which wins over
// invalid params, whatever the order of the keys. A byte order mark is the transport's to
// strip. A [KindNotification] or [KindResponse] is never answered, even when it is malformed.
//
// # Encoding
//
// [AppendResult], [AppendError] and [AppendNotification] write envelopes into a caller's
// buffer; [AppendString] writes a JSON string, with an ASCII-only mode that escapes every
// non-ASCII character as \uXXXX (surrogate pairs beyond the BMP), which the stdio transport
// uses; U+2028 and U+2029 are always escaped. [AppendASCII] applies the same rule to a whole
// JSON document produced by another encoder.
package decode
