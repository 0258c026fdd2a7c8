//go:build !linux

package storetest

import "errors"

// immutable is not implemented here: root's writes cannot be refused.
func immutable(string) (func(), error) {
	return nil, errors.New("no immutable attribute on this system")
}
