package main

import (
	"os"

	// Root certificates built in, used where the system has none (the
	// image is FROM scratch: no CA bundle).
	_ "golang.org/x/crypto/x509roots/fallback"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}
