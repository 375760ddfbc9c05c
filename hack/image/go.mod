// Module image builds statecraft's container image without Docker (see the
// root Makefile's image target): go-containerregistry writes it as a tarball
// and an OCI layout. A separate module, so the root module never depends on
// the image library.
module github.com/statecraft/statecraft/hack/image

go 1.26.0

require github.com/google/go-containerregistry v0.22.1

require (
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	golang.org/x/sync v0.22.0 // indirect
)
