// Package policies embeds the rule files statecraft ships, so that the
// binary can run them by name. It holds no logic: the behaviour is in the
// .hcl files.
package policies
