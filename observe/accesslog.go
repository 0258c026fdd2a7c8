package observe

import (
	"context"
	"log/slog"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// AccessLogMessage is the message of every access log line.
const AccessLogMessage = "mcp request"

// AccessLog is a [fastmcp.Observer] that writes one log/slog line per request, at level
// Info, once it ended: method, tool or prompt, protocol version, network transport, id,
// duration, and the error type when the reply is an error, or cancelled=true when nothing
// was answered (an attempt the transport runs again is logged when it is answered). It never
// logs arguments, results or identities.
type AccessLog struct {
	logger *slog.Logger
}

// NewAccessLog returns an AccessLog writing to logger (slog.Default() when nil).
func NewAccessLog(logger *slog.Logger) *AccessLog {
	if logger == nil {
		logger = slog.Default()
	}
	return &AccessLog{logger: logger}
}

// RequestStart does nothing: the line is written at the end.
func (a *AccessLog) RequestStart(ctx context.Context, _ fastmcp.RequestInfo) context.Context {
	return ctx
}

// RequestEnd writes the line.
func (a *AccessLog) RequestEnd(ctx context.Context, info fastmcp.RequestInfo, out fastmcp.RequestOutcome) {
	if out.Rerun || !a.logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	attrs := make([]slog.Attr, 0, 9)
	attrs = append(attrs, slog.String("method", info.Method))
	if info.Tool != "" {
		attrs = append(attrs, slog.String("tool", info.Tool))
	}
	if info.Prompt != "" {
		attrs = append(attrs, slog.String("prompt", info.Prompt))
	}
	if info.ProtocolVersion != "" {
		attrs = append(attrs, slog.String("version", info.ProtocolVersion))
	}
	if info.Network != "" {
		attrs = append(attrs, slog.String("network", info.Network))
	}
	if id := requestID(info.ID()); id != "" {
		attrs = append(attrs, slog.String("id", id))
	}
	attrs = append(attrs, slog.Duration("duration", out.Duration))
	if out.ErrorType != "" {
		attrs = append(attrs, slog.String("error_type", out.ErrorType))
	}
	if out.Cancelled {
		attrs = append(attrs, slog.Bool("cancelled", true))
	}
	a.logger.LogAttrs(ctx, slog.LevelInfo, AccessLogMessage, attrs...)
}
