// Package defaults resolves the numeric fields of a Config that follow the module's rule:
// zero means the default, a negative value is invalid.
//
// Consecutive fields resolve in one statement with cmp.Or, which returns the first error in
// field order (every field is still resolved, but a config with an error is discarded):
//
//	if err := cmp.Or(
//		defaults.Resolve(&c.KeepAliveInterval, DefaultKeepAliveInterval, "KeepAliveInterval", ErrInvalidConfig),
//		defaults.Resolve(&c.WriteTimeout, DefaultWriteTimeout, "WriteTimeout", ErrInvalidConfig),
//	); err != nil {
//		return c, err
//	}
package defaults

import "fmt"

// Resolve replaces a zero *v with def and leaves a positive *v as it is. A negative *v is
// left as it is too, and reported as "<invalid>: <name> <value> is negative", wrapping
// invalid (the package's ErrInvalidConfig). The value prints as fmt's %v does: a number for
// an int, "-1s" for a time.Duration.
//
// Fields with a negative sentinel (pool.NoTimeout, pool.NoQueue, …) are resolved by their
// package, not here.
func Resolve[T ~int | ~int64](v *T, def T, name string, invalid error) error {
	switch {
	case *v < 0:
		return fmt.Errorf("%w: %s %v is negative", invalid, name, *v)
	case *v == 0:
		*v = def
	}
	return nil
}
