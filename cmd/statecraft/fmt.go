package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/spf13/cobra"
)

const fmtUsage = `Usage: statecraft fmt [-check] FILE...

Rewrite rule files in the canonical HCL layout (hclwrite). A folder stands
for every *.hcl file below it.

  -check   write nothing; print the names of the files that would change
           and exit 1 if there is any
`

// fmtCmd is `statecraft fmt [-check] FILE...`. Flags are parsed here, not by
// cobra, so that -check is accepted with one dash as terraform fmt spells it
// (and --check too).
func fmtCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:                "fmt [-check] FILE...",
		Short:              "Rewrite rule files in the canonical layout; -check lists the files that would change",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			check := false
			var paths []string
			flags := true
			for _, a := range args {
				switch {
				case flags && a == "--":
					flags = false
				case flags && (a == "-check" || a == "--check" || a == "-check=true" || a == "--check=true"):
					check = true
				case flags && (a == "-check=false" || a == "--check=false"):
					check = false
				case flags && (a == "-h" || a == "-help" || a == "--help"):
					fmt.Fprint(stdout, fmtUsage)
					return nil
				case flags && strings.HasPrefix(a, "-") && a != "-":
					fmt.Fprintf(stderr, "statecraft fmt: unknown flag %s\n%s", a, fmtUsage)
					return ExitError{2}
				default:
					paths = append(paths, a)
				}
			}
			if len(paths) == 0 {
				fmt.Fprint(stderr, fmtUsage)
				return ExitError{2}
			}
			files, err := hclFiles(paths)
			if err != nil {
				return err
			}
			code := 0
			for _, f := range files {
				changed, diags, err := formatFile(f, check)
				switch {
				case err != nil:
					fmt.Fprintf(stderr, "statecraft fmt: %v\n", err)
					code = 1
				case diags.HasErrors():
					printDiags(stderr, diags)
					code = 1
				case changed:
					fmt.Fprintln(stdout, f)
					if check {
						code = 1
					}
				}
			}
			if code != 0 {
				return ExitError{code}
			}
			return nil
		},
	}
}

// hclFiles expands folders into the *.hcl files below them, in lexical
// order; files are kept as given.
func hclFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".hcl") {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// formatFile formats one file with hclwrite. It refuses a file with syntax
// errors (formatting it could garble it) and, unless check is set, rewrites
// a file that changes, keeping its mode.
func formatFile(path string, check bool) (bool, hcl.Diagnostics, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return false, nil, err
	}
	if _, diags := hclwrite.ParseConfig(src, path, hcl.InitialPos); diags.HasErrors() {
		return false, diags, nil
	}
	out := hclwrite.Format(src)
	if bytes.Equal(src, out) {
		return false, nil, nil
	}
	if check {
		return true, nil, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return false, nil, err
	}
	if err := os.WriteFile(path, out, st.Mode().Perm()); err != nil {
		return false, nil, err
	}
	return true, nil, nil
}
