package uritemplate

import (
	"errors"
	"strconv"
)

// Sentinel errors. [Parse] returns a [*ParseError] that wraps exactly one of
// them, so callers test the reason with [errors.Is].
var (
	// ErrTooLong: the template is longer than [MaxTemplateBytes].
	ErrTooLong = errors.New("uritemplate: template too long")
	// ErrTooManyVars: the template has more than [MaxVars] expressions.
	ErrTooManyVars = errors.New("uritemplate: too many variables")
	// ErrSyntax: the template is not valid RFC 6570 syntax (unbalanced
	// braces, empty expression, bad variable name, empty template).
	ErrSyntax = errors.New("uritemplate: syntax error")
	// ErrUnsupported: valid RFC 6570 syntax outside the level-1 subset
	// (operators such as {+x} or {?x}, modifiers {x:3} and {x*}, lists {x,y}).
	ErrUnsupported = errors.New("uritemplate: unsupported expression")
	// ErrDuplicateVar: a variable name appears in two expressions.
	ErrDuplicateVar = errors.New("uritemplate: duplicate variable")
	// ErrAdjacentVars: two expressions with no literal text between them
	// ({a}{b}); matching them would be ambiguous.
	ErrAdjacentVars = errors.New("uritemplate: adjacent expressions")
)

// ParseError reports why [Parse] rejected a template.
type ParseError struct {
	// Offset is the byte offset in the template where the problem was found.
	Offset int
	// Err is one of the package's sentinel errors.
	Err error
	// Detail describes the problem in words.
	Detail string
}

// Error returns the sentinel's message, the detail and the offset.
func (e *ParseError) Error() string {
	return e.Err.Error() + ": " + e.Detail + " (offset " + strconv.Itoa(e.Offset) + ")"
}

// Unwrap returns the sentinel error.
func (e *ParseError) Unwrap() error { return e.Err }

func parseError(off int, err error, detail string) *ParseError {
	return &ParseError{Offset: off, Err: err, Detail: detail}
}
