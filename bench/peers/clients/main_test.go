package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRunUsage(t *testing.T) {
	assert.EqualError(t, run("go-sdk", "bogus", "", measureOptions{}, ""), `-era modern or legacy, not "bogus"`)
	assert.EqualError(t, run("nope", "modern", "", measureOptions{}, ""), `-client go-sdk or mcp-go, not "nope"`)
}
