package wireschema

import "errors"

var (
	// ErrUnknownRevision is returned for a revision with no embedded schema.
	ErrUnknownRevision = errors.New("wireschema: unknown revision")
	// ErrUnknownDefinition is returned for a definition name the revision's schema does not have.
	ErrUnknownDefinition = errors.New("wireschema: unknown definition")
	// ErrInvalidJSON is returned when the message is not exactly one JSON value.
	ErrInvalidJSON = errors.New("wireschema: message is not valid JSON")
	// ErrInvalid is returned (wrapped, with the validator's detailed report) when the message does
	// not match the definition.
	ErrInvalid = errors.New("wireschema: message does not match definition")
)
