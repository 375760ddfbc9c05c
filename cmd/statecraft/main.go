// Command statecraft compiles lifecycle rule files, explains them, and runs
// them on a simulated cluster or against a Kubernetes API server. It only
// wires flags to package cli.
package main

import (
	"os"

	"github.com/statecraft/statecraft/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
