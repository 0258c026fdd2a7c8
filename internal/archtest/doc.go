// Package archtest holds the test that enforces the package graph of the design
// (dependencies point inward): see deps_test.go.
package archtest
