// Package transport is the API of a [fastmcp.Server] for the authors of its transports: a
// user registers tools on the Server and hands it to a transport (stdio, streamable, or
// one of their own); the transport serves messages through [Endpoint], which [For] returns.
//
// A transport keeps, per client, a [fastmcp.ConnState]: the dialect that serves it and, in
// the initialize era, what the handshake declared. For each message it decodes it
// ([Endpoint.Decoder]; a failure is answered with [Endpoint.DecodeError]), asks which
// dialect serves it ([Endpoint.Classify]), and serves it with [Endpoint.Serve], the one
// entry point for every dialect. What it must do around a request — how it is cancelled,
// which headers mirror the body, whether the request may wait for the client, the HTTP
// status of the reply — it asks the dialect's [Rules] instead of branching on the dialect.
//
// A transport that carries no state between messages (stateless HTTP) serves each
// initialize-era request with [Endpoint.Stateless]; one that keeps a connection (stdio)
// adopts the state an initialize or logging/setLevel reports in [fastmcp.Reply].State and
// delivers unsolicited notifications with [Endpoint.SubscribeEvents].
//
//	ep := transport.For(core)
//	var m decode.Message
//	if err := ep.Decoder().Decode(&m, line); err != nil {
//		return ep.DecodeError(nil, &m, err).Body
//	}
//	d, refusal := ep.Classify(&m, negotiated, negotiated != nil)
//	if refusal != nil {
//		return decode.AppendError(nil, m.ID().Raw(), int64(refusal.Code), refusal.Message, refusal.Data, false)
//	}
//	st := conn.state // what the connection knows of its client
//	st.Dialect = d
//	return ep.Serve(ctx, &st, &m, sink, nil).Body
package transport
