package controlplane

import (
	"context"
	"errors"
	"os"
	"testing"
)

// EnvRequire names the environment variable that, when "1", turns a missing
// control-plane binary from a skipped test into a failed one (CI sets it).
const EnvRequire = "STATECRAFT_REQUIRE_CONTROLPLANE"

// Required reports whether $STATECRAFT_REQUIRE_CONTROLPLANE is "1".
func Required() bool { return os.Getenv(EnvRequire) == "1" }

// Unavailable returns why tests cannot run a control plane here: "" when the
// binaries are present, otherwise a message naming what is missing.
func Unavailable() string {
	if _, err := CheckBinaries(""); err != nil {
		return err.Error()
	}
	return ""
}

// SkipOrFail skips tb when the binaries are missing, or fails it when
// $STATECRAFT_REQUIRE_CONTROLPLANE is "1"; it returns when they are present.
func SkipOrFail(tb testing.TB) {
	tb.Helper()
	if why := Unavailable(); why != "" {
		if Required() {
			tb.Fatalf("%s is 1 but the control plane cannot run: %s", EnvRequire, why)
		}
		tb.Skip(why)
	}
}

// SkipOrFailControllers is SkipOrFail for a control plane with
// Options.Controllers, which also needs ControllerBinaries (`make cluster`).
func SkipOrFailControllers(tb testing.TB) {
	tb.Helper()
	if _, err := CheckControllerBinaries(""); err != nil {
		if Required() {
			tb.Fatalf("%s is 1 but the cluster's controllers cannot run: %v", EnvRequire, err)
		}
		tb.Skip(err)
	}
}

// StartForTest starts a control plane for one test (or SkipOrFail decides),
// and stops it when the test ends.
func StartForTest(tb testing.TB, opts Options) *ControlPlane {
	tb.Helper()
	if opts.Controllers {
		SkipOrFailControllers(tb)
	} else {
		SkipOrFail(tb)
	}
	cp, err := Start(context.Background(), opts)
	if err != nil {
		if errors.Is(err, ErrMissingBinaries) && !Required() {
			tb.Skip(err)
		}
		tb.Fatalf("start control plane: %v", err)
	}
	tb.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			tb.Errorf("stop control plane: %v", err)
		}
	})
	return cp
}
