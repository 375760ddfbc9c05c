// Command image builds statecraft's container image from a static binary,
// without Docker and without a base image: one layer holding the binary at
// /statecraft, /etc/passwd and /etc/group naming the non-root user 65532
// (nonroot), its home and /tmp; the config runs /statecraft as 65532:65532.
// The Go binary carries its own root certificates
// (golang.org/x/crypto/x509roots/fallback), so the image needs no CA bundle.
//
// It writes a tarball (`docker load`, `kind load image-archive`, `crane
// push`) and an OCI image layout (`skopeo copy oci:...`), both with every
// -tag as a reference. Timestamps come from -created, so the same binary
// makes the same image.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

type tags []string

func (t *tags) String() string     { return strings.Join(*t, ",") }
func (t *tags) Set(s string) error { *t = append(*t, s); return nil }

func main() {
	var refs tags
	binary := flag.String("binary", "bin/statecraft", "the static statecraft binary")
	outTar := flag.String("tar", "bin/statecraft-image.tar", "the tarball to write")
	outLayout := flag.String("layout", "bin/statecraft-image", "the OCI image layout to write (a folder, replaced)")
	version := flag.String("version", "dev", "org.opencontainers.image.version")
	revision := flag.String("revision", "", "org.opencontainers.image.revision")
	created := flag.Int64("created", 0, "creation time, seconds since the epoch (SOURCE_DATE_EPOCH)")
	arch := flag.String("arch", "amd64", "the binary's GOARCH")
	flag.Var(&refs, "tag", "an image reference, e.g. statecraft:v1.2.3 (repeatable)")
	flag.Parse()
	if len(refs) == 0 {
		fail(fmt.Errorf("no -tag"))
	}
	if err := build(*binary, *outTar, *outLayout, *version, *revision, time.Unix(*created, 0).UTC(), *arch, refs); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "image:", err)
	os.Exit(1)
}

const (
	uid      = 65532
	passwd   = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group    = "root:x:0:\nnonroot:x:65532:\n"
	nsswitch = "passwd: files\ngroup: files\nhosts: files dns\n"
)

// rootfs is the layer: a tar of the files, owned by root but for the home.
func rootfs(bin []byte, at time.Time) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	dir := func(name string, mode int64, owner int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: owner, Gid: owner, ModTime: at, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: at, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	for _, step := range []func() error{
		func() error { return dir("etc", 0o755, 0) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return file("etc/nsswitch.conf", 0o644, []byte(nsswitch)) },
		func() error { return dir("home", 0o755, 0) },
		func() error { return dir("home/nonroot", 0o700, uid) },
		func() error { return dir("tmp", 0o1777, 0) },
		func() error { return file("statecraft", 0o755, bin) },
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func build(binary, outTar, outLayout, version, revision string, created time.Time, arch string, refs []string) error {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	fs, err := rootfs(bin, created)
	if err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(fs)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return err
	}
	img, err := mutate.Append(mutate.MediaType(empty.Image, types.OCIManifestSchema1), mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "make image (hack/image)", Comment: "statecraft " + version},
	})
	if err != nil {
		return err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = arch, "linux"
	cf.Created = v1.Time{Time: created}
	cf.Config.Entrypoint = []string{"/statecraft"}
	cf.Config.User = fmt.Sprintf("%d:%d", uid, uid)
	cf.Config.WorkingDir = "/home/nonroot"
	cf.Config.Env = []string{"HOME=/home/nonroot", "PATH=/"}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       "statecraft",
		"org.opencontainers.image.description": "statecraft, a declarative rules engine for Kubernetes lifecycles",
		"org.opencontainers.image.source":      "https://github.com/statecraft/statecraft",
		"org.opencontainers.image.version":     version,
		"org.opencontainers.image.revision":    revision,
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return err
	}
	if img, err = mutate.CreatedAt(img, v1.Time{Time: created}); err != nil {
		return err
	}

	byRef := map[name.Reference]v1.Image{}
	for _, r := range refs {
		ref, err := name.NewTag(r, name.WithDefaultRegistry(""))
		if err != nil {
			return fmt.Errorf("-tag %q: %w", r, err)
		}
		byRef[ref] = img
	}
	tmp := outTar + ".tmp"
	if err := tarball.MultiRefWriteToFile(tmp, byRef); err != nil {
		return err
	}
	if err := os.Rename(tmp, outTar); err != nil {
		return err
	}

	if err := os.RemoveAll(outLayout); err != nil {
		return err
	}
	p, err := layout.Write(outLayout, empty.Index)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
			"org.opencontainers.image.ref.name": r,
		})); err != nil {
			return err
		}
	}
	d, _ := img.Digest()
	fmt.Printf("image %s (%s): %s, %s\n", strings.Join(refs, ", "), d, outTar, outLayout)
	return nil
}
