//go:build tools

// Package tools records the command this module builds, so that go.mod and
// go.sum keep every module it needs. It is never compiled.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
