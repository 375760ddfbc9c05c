package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// outputFlag registers -o/--output on cmd as kubectl spells it: "" (the
// command's text), json or yaml.
func outputFlag(cmd *cobra.Command, o *string) {
	cmd.Flags().StringVarP(o, "output", "o", "", "output format: json or yaml (default: text)")
}

// checkOutput refuses an -o value other than json or yaml.
func checkOutput(o string) error {
	switch o {
	case "", "json", "yaml":
		return nil
	}
	return fmt.Errorf("--output %q: want json or yaml", o)
}

// writeStructured prints v as one JSON document (indented) or as YAML
// converted from that JSON, so that both show the same field names.
func writeStructured(w io.Writer, o string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if o == "yaml" {
		data, err = yaml.JSONToYAML(data)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// version and commit are set by the Makefile (-ldflags "-X main.version=...
// -X main.commit=..."); a plain `go build` or `go install` leaves them empty
// and the build information stands in (the module version for `go install
// ...@vX`, the VCS revision for a build in a git checkout).
var version, commit string

// VersionInfo is what `statecraft version` prints.
type VersionInfo struct {
	Version   string `json:"version"`
	Module    string `json:"module,omitempty"`
	Commit    string `json:"commit,omitempty"`
	CommitAt  string `json:"commitTime,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

func versionInfo() VersionInfo {
	v := VersionInfo{Version: version, Commit: commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module = bi.Main.Path
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if v.Commit == "" {
					v.Commit = s.Value
				}
			case "vcs.time":
				v.CommitAt = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	return v
}

func (v VersionInfo) String() string {
	s := "statecraft " + v.Version
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		s += " (commit " + c
		if v.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + v.GoVersion + " " + v.Platform
}

func versionCmd(stdout io.Writer) *cobra.Command {
	var o string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of statecraft, the commit it was built from and its Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(o); err != nil {
				return err
			}
			v := versionInfo()
			if o != "" {
				return writeStructured(stdout, o, v)
			}
			_, err := fmt.Fprintln(stdout, v)
			return err
		},
	}
	outputFlag(cmd, &o)
	return cmd
}
