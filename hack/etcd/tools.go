//go:build tools

// Package tools records the command this module builds (the etcd server,
// the root package of go.etcd.io/etcd/server/v3), so that go.mod and go.sum
// keep every module it needs. It is never compiled.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
)
