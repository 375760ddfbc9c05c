package deploytest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/statecraft/statecraft/internal/controlplane"
)

// imageTarball is where `make image` writes the image, next to the other
// built binaries (bin/, or $STATECRAFT_BIN).
func imageTarball(t *testing.T) string {
	t.Helper()
	dir, err := controlplane.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "statecraft-image.tar")
	if _, err := os.Stat(p); err != nil {
		if controlplane.Required() {
			t.Fatalf("%s is 1 but there is no image: %v (make image)", controlplane.EnvRequire, err)
		}
		t.Skipf("no image (make image): %v", err)
	}
	return p
}

// readTar returns the files of a tar stream by name.
func readTar(t *testing.T, r io.Reader) map[string]*tarFile {
	t.Helper()
	out := map[string]*tarFile{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(h.Name, "./")] = &tarFile{h, data}
	}
}

type tarFile struct {
	h    *tar.Header
	data []byte
}

// TestImage reads the image `make image` built: its tags, its config
// (entrypoint, non-root user), its one layer (the static binary, the passwd
// entry of that user), and runs the binary taken from the layer, as that
// user, with `version`.
func TestImage(t *testing.T) {
	f, err := os.Open(imageTarball(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := readTar(t, f)
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if mf := files["manifest.json"]; mf == nil {
		t.Fatalf("no manifest.json in the tarball; have %v", keys(files))
	} else if err := json.Unmarshal(mf.data, &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("manifest.json: %v %s", err, mf.data)
	}
	m := manifest[0]
	var cfg struct {
		Architecture, OS string
		Config           struct {
			Entrypoint []string
			Cmd        []string
			User       string
			Labels     map[string]string
		}
	}
	if err := json.Unmarshal(files[m.Config].data, &cfg); err != nil {
		t.Fatalf("config %s: %v", m.Config, err)
	}
	if !slices.Equal(cfg.Config.Entrypoint, []string{"/statecraft"}) || cfg.Config.User != "65532:65532" || cfg.OS != "linux" {
		t.Errorf("config: entrypoint %v, user %q, os %q; want [/statecraft], 65532:65532, linux", cfg.Config.Entrypoint, cfg.Config.User, cfg.OS)
	}
	version := cfg.Config.Labels["org.opencontainers.image.version"]
	if version == "" || !slices.Contains(m.RepoTags, "statecraft:"+version) {
		t.Errorf("tags %v, version label %q: want the image tagged with its version", m.RepoTags, version)
	}
	// The chart and examples/deploy name statecraft:dev, which every build
	// but a release's carries.
	if !strings.HasPrefix(version, "v") && !slices.Contains(m.RepoTags, "statecraft:dev") {
		t.Errorf("tags %v: a development build lacks statecraft:dev", m.RepoTags)
	}
	if len(m.Layers) != 1 {
		t.Fatalf("%d layers, want 1 (FROM scratch: the binary and /etc)", len(m.Layers))
	}
	zr, err := gzip.NewReader(bytes.NewReader(files[m.Layers[0]].data))
	if err != nil {
		t.Fatal(err)
	}
	layer := readTar(t, zr)
	if want := []string{"etc/", "etc/group", "etc/nsswitch.conf", "etc/passwd", "home/", "home/nonroot/", "statecraft", "tmp/"}; !slices.Equal(keys(layer), want) {
		t.Errorf("layer holds %v, want %v", keys(layer), want)
	}
	if p := layer["etc/passwd"]; p == nil || !strings.Contains(string(p.data), "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd has no user 65532")
	}
	if h := layer["home/nonroot/"]; h == nil || h.h.Uid != 65532 {
		t.Errorf("the home is not the user's")
	}
	bin := layer["statecraft"]
	if bin == nil || bin.h.Mode&0o111 == 0 {
		t.Fatalf("no executable /statecraft in the layer")
	}

	// Static: no program interpreter, no dynamic section.
	ef, err := elf.NewFile(bytes.NewReader(bin.data))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary is dynamically linked (%v)", p.Type)
		}
	}
	if cfg.Architecture != archOf(ef.Machine) {
		t.Errorf("config architecture %q, binary for %v", cfg.Architecture, ef.Machine)
	}
	if archOf(ef.Machine) != goarch() {
		t.Skipf("the image is for %s; not running it here", cfg.Architecture)
	}

	dir, err := os.MkdirTemp("", "statecraft-image-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755) // the image's user must reach the binary
	path := filepath.Join(dir, "statecraft")
	if err := os.WriteFile(path, bin.data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "version", "-o", "json")
	if os.Getuid() == 0 {
		// As the image's user, as the pod runs it.
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("statecraft version from the image: %v: %s", err, out)
	}
	var v struct{ Version, Commit, Platform string }
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("version -o json: %v: %s", err, out)
	}
	if v.Version != version || v.Commit != cfg.Config.Labels["org.opencontainers.image.revision"] || v.Platform != "linux/"+cfg.Architecture {
		t.Errorf("the binary says %+v; the image's labels say version %s, revision %s", v, version, cfg.Config.Labels["org.opencontainers.image.revision"])
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
