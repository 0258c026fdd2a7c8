package observe

import "errors"

// ErrInvalidConfig is wrapped by the errors the constructors return for an invalid config.
var ErrInvalidConfig = errors.New("observe: invalid config")
