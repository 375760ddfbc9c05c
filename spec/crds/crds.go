package crds

import (
	"embed"
	"io/fs"
	"sort"
)

//go:embed *.yaml
var files embed.FS

// Read returns the bytes of one shipped CRD manifest.
func Read(name string) ([]byte, error) { return files.ReadFile(name) }

// Names lists the shipped CRD manifests, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}
