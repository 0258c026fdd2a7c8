package fastmcp

import (
	"context"
	"errors"

	"github.com/bytedance/sonic"

	"github.com/fastmcp-go/fastmcp/decode"
)

// LogLevel is the severity of a log message (RFC 5424 levels, as MCP names them).
type LogLevel int8

// The levels, lowest first.
const (
	LogDebug LogLevel = iota
	LogInfo
	LogNotice
	LogWarning
	LogError
	LogCritical
	LogAlert
	LogEmergency

	// LogOff sends no log message.
	LogOff LogLevel = -1

	logOff              = LogOff // the request set no logLevel: nothing is sent
	logInvalid LogLevel = -2
)

// logLevelNamed parses a level name, or "off"; logInvalid for anything else.
func logLevelNamed(name string) LogLevel {
	if name == "off" {
		return logOff
	}
	for i, n := range logLevelNames {
		if name == n {
			return LogLevel(i)
		}
	}
	return logInvalid
}

var logLevelNames = [...]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func (l LogLevel) String() string {
	if l >= 0 && int(l) < len(logLevelNames) {
		return logLevelNames[l]
	}
	return "off"
}

func parseLogLevel(v decode.Value) (LogLevel, bool) {
	if v.Type() != decode.TypeString {
		return logOff, false
	}
	for i, n := range logLevelNames {
		if string(v.Text()) == n {
			return LogLevel(i), true
		}
	}
	return logOff, false
}

// ErrNoSink is returned by Log and Progress when the request has no way back to the client for
// notifications (it is not an error to ignore).
var ErrNoSink = errors.New("fastmcp: request has no notification sink")

// LogLevel returns the lowest level of the log messages Log sends for this request: its
// _meta's logLevel, or for an initialize-era request its client's (logging/setLevel, else
// Config.LegacyLogLevel); LogOff when none is sent.
func (r *Request) LogLevel() LogLevel { return r.logLevel }

// Log sends a notifications/message to the client on this request's own stream, when the
// request set _meta["io.modelcontextprotocol/logLevel"] and level is at or above it; otherwise
// it does nothing and returns nil. data is any JSON-encodable value; logger may be empty.
// Logging is deprecated in 2026-07-28 but still served.
func (r *Request) Log(ctx context.Context, level LogLevel, logger string, data any) error {
	if r.logLevel == logOff || level < r.logLevel {
		return nil
	}
	if r.sink == nil {
		return ErrNoSink
	}
	enc, err := sonic.Marshal(data)
	if err != nil {
		return err
	}
	params := append(make([]byte, 0, 64+len(enc)), `{"level":"`...)
	params = append(params, level.String()...)
	params = append(params, '"')
	if logger != "" {
		params = append(params, `,"logger":`...)
		params = decode.AppendString(params, logger, false)
	}
	params = append(params, `,"data":`...)
	params = append(params, enc...)
	params = append(params, '}')
	return r.sink.Notify(ctx, decode.AppendNotification(nil, "notifications/message", params))
}
