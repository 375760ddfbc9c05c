package policies

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.hcl
var files embed.FS

// Names lists the shipped policies by name (file name without .hcl), sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".hcl"))
	}
	sort.Strings(out)
	return out
}

// Source returns the text of a shipped policy and the file name it is
// reported under in diagnostics.
func Source(name string) ([]byte, string, bool) {
	b, err := files.ReadFile(name + ".hcl")
	if err != nil {
		return nil, "", false
	}
	return b, "policies/" + name + ".hcl", true
}
