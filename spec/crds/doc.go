// Package crds embeds the CustomResourceDefinitions statecraft ships, so the
// binary can install them and rule files can type `self` from their schemas
// (schema = "crd:FILE"). It holds no logic.
package crds
