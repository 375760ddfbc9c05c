// Package enginetest holds what tests of the engine and of its runners
// share: a decision written as lines to compare. It owns no behaviour; the
// engine's is package engine's, and the tests are their packages' own.
package enginetest
