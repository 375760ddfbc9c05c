# hack/controlplane.mk: build a local Kubernetes control plane (kube-apiserver
# and etcd) from the Go module proxy into the gitignored bin/ directory.
#
# No prebuilt download can be reached on our machines and there is no Docker,
# so the binaries are compiled from source, once per machine: a target is
# skipped when its binary is present (remove it, or run
# `make controlplane-clean`, to rebuild). The Go build cache makes a rebuild in
# a fresh clone much cheaper than the first, cold build.
#
#   kube-apiserver  module k8s.io/kubernetes, through hack/controlplane/go.mod,
#                   which replaces every k8s.io/<staging> module with its
#                   published v0.<minor>.<patch> release
#   etcd            module go.etcd.io/etcd/server/v3 (its root package is the
#                   etcd main), through hack/etcd/go.mod
#
# and, for a local cluster that runs workloads (`make cluster`; `statecraft
# dev` and the tests that ask for controllers use them):
#
#   kube-controller-manager, kube-scheduler
#                   module k8s.io/kubernetes again, through the same
#                   hack/controlplane/go.mod as kube-apiserver
#   kwok            module sigs.k8s.io/kwok (cmd/kwok), through hack/kwok/go.mod:
#                   fake nodes whose pods become Running and Ready without a
#                   kubelet
#
# The root Makefile includes this file; it also works on its own:
#   make -f hack/controlplane.mk controlplane
# Targets are paths relative to the repository root, where make runs.
# KUBE_APISERVER_VERSION and ETCD_VERSION name what was built.
# controller-runtime's envtest and internal/controlplane find the binaries in
# bin/ (or in $STATECRAFT_BIN).

CONTROLPLANE_MK_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
CONTROLPLANE_ROOT := $(patsubst %/,%,$(dir $(CONTROLPLANE_MK_DIR)))
CONTROLPLANE_GO ?= go

# Versions, read from the modules' go.mod files (change them there, with
# `go get` in that directory).
KUBE_APISERVER_VERSION := $(shell awk '$$1 == "require" && $$2 == "k8s.io/kubernetes" { print $$3 }' $(CONTROLPLANE_MK_DIR)/controlplane/go.mod)
ETCD_VERSION := $(shell awk '$$1 == "require" && $$2 == "go.etcd.io/etcd/server/v3" { print $$3 }' $(CONTROLPLANE_MK_DIR)/etcd/go.mod)
KWOK_VERSION := $(shell awk '$$1 == "require" && $$2 == "sigs.k8s.io/kwok" { print $$3 }' $(CONTROLPLANE_MK_DIR)/kwok/go.mod)

# Stamp the release into the binary so that `kube-apiserver --version` and the
# /version endpoint report it (a build from the module cache has no git data).
KUBE_APISERVER_LDFLAGS := -s -w \
	-X k8s.io/component-base/version.gitVersion=$(KUBE_APISERVER_VERSION) \
	-X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(patsubst v%,%,$(KUBE_APISERVER_VERSION)))) \
	-X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBE_APISERVER_VERSION))) \
	-X k8s.io/component-base/version.gitTreeState=clean

# GOWORK=off: a go.work file elsewhere must not pull these modules into a
# workspace. GOFLAGS=-mod=readonly: go.mod and go.sum are complete; a build
# never edits them.
CONTROLPLANE_GOENV := GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0

.PHONY: controlplane cluster controlplane-clean controlplane-versions

## controlplane: build bin/kube-apiserver and bin/etcd (skipped when present)
controlplane: bin/kube-apiserver bin/etcd

## cluster: the control plane plus kube-controller-manager, kube-scheduler and kwok
cluster: controlplane bin/kube-controller-manager bin/kube-scheduler bin/kwok bin/kwok-stages.yaml

# Each binary depends on a stamp named after its version: the stamp of the
# version built is older than the binary, so a present binary is skipped, and
# a version change in go.mod makes a new stamp and rebuilds once.
bin/.kube-apiserver-$(KUBE_APISERVER_VERSION).version bin/.etcd-$(ETCD_VERSION).version \
bin/.kube-controller-manager-$(KUBE_APISERVER_VERSION).version bin/.kube-scheduler-$(KUBE_APISERVER_VERSION).version \
bin/.kwok-$(KWOK_VERSION).version:
	@mkdir -p $(CONTROLPLANE_ROOT)/bin
	@rm -f $(CONTROLPLANE_ROOT)/bin/.$(patsubst %-$(lastword $(subst -, ,$(patsubst bin/.%.version,%,$@))),%,$(patsubst bin/.%.version,%,$@))-v*.version
	@touch $(CONTROLPLANE_ROOT)/$@

# The binary is written under a temporary name and renamed, so an interrupted
# build never leaves a file that make would take for a finished one.
bin/kube-apiserver: bin/.kube-apiserver-$(KUBE_APISERVER_VERSION).version
	@mkdir -p $(CONTROLPLANE_ROOT)/bin
	@echo "building kube-apiserver $(KUBE_APISERVER_VERSION) from source (several minutes cold)"
	cd $(CONTROLPLANE_MK_DIR)/controlplane && $(CONTROLPLANE_GOENV) $(CONTROLPLANE_GO) build -trimpath \
		-ldflags '$(KUBE_APISERVER_LDFLAGS)' \
		-o $(CONTROLPLANE_ROOT)/bin/kube-apiserver.tmp k8s.io/kubernetes/cmd/kube-apiserver
	mv -f $(CONTROLPLANE_ROOT)/bin/kube-apiserver.tmp $(CONTROLPLANE_ROOT)/bin/kube-apiserver

# kube-controller-manager and kube-scheduler come from the same module and
# build cache as kube-apiserver, so each costs a few minutes more, not a cold
# build of its own.
bin/kube-controller-manager bin/kube-scheduler: bin/%: bin/.%-$(KUBE_APISERVER_VERSION).version
	@mkdir -p $(CONTROLPLANE_ROOT)/bin
	@echo "building $* $(KUBE_APISERVER_VERSION) from source (several minutes cold)"
	cd $(CONTROLPLANE_MK_DIR)/controlplane && $(CONTROLPLANE_GOENV) $(CONTROLPLANE_GO) build -trimpath \
		-ldflags '$(KUBE_APISERVER_LDFLAGS)' \
		-o $(CONTROLPLANE_ROOT)/bin/$*.tmp k8s.io/kubernetes/cmd/$*
	mv -f $(CONTROLPLANE_ROOT)/bin/$*.tmp $(CONTROLPLANE_ROOT)/bin/$*

bin/kwok: bin/.kwok-$(KWOK_VERSION).version
	@mkdir -p $(CONTROLPLANE_ROOT)/bin
	@echo "building kwok $(KWOK_VERSION) from source"
	cd $(CONTROLPLANE_MK_DIR)/kwok && $(CONTROLPLANE_GOENV) $(CONTROLPLANE_GO) build -trimpath \
		-ldflags '-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$(patsubst v%,%,$(KWOK_VERSION))' \
		-o $(CONTROLPLANE_ROOT)/bin/kwok.tmp sigs.k8s.io/kwok/cmd/kwok
	mv -f $(CONTROLPLANE_ROOT)/bin/kwok.tmp $(CONTROLPLANE_ROOT)/bin/kwok

# kwok's default stages (a node that turns Ready and keeps its Lease, pods
# that turn Running and Ready, complete, and go when deleted), taken from the
# same module version as the binary: kwokctl writes them into its clusters'
# configuration; a kwok run on its own needs them in --config.
KWOK_STAGES := kustomize/stage/node/fast/node-initialize.yaml \
	kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
	kustomize/stage/pod/fast/pod-ready.yaml kustomize/stage/pod/fast/pod-complete.yaml \
	kustomize/stage/pod/fast/pod-delete.yaml
bin/kwok-stages.yaml: bin/.kwok-$(KWOK_VERSION).version
	@mkdir -p $(CONTROLPLANE_ROOT)/bin
	cd $(CONTROLPLANE_MK_DIR)/kwok && dir=$$(GOWORK=off GOFLAGS=-mod=readonly $(CONTROLPLANE_GO) mod download -json sigs.k8s.io/kwok | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p') && \
		test -n "$$dir" && for f in $(KWOK_STAGES); do echo "---"; cat "$$dir/$$f"; done > $(CONTROLPLANE_ROOT)/$@.tmp
	mv -f $(CONTROLPLANE_ROOT)/$@.tmp $(CONTROLPLANE_ROOT)/$@

bin/etcd: bin/.etcd-$(ETCD_VERSION).version
	@mkdir -p $(CONTROLPLANE_ROOT)/bin
	@echo "building etcd $(ETCD_VERSION) from source"
	cd $(CONTROLPLANE_MK_DIR)/etcd && $(CONTROLPLANE_GOENV) $(CONTROLPLANE_GO) build -trimpath -ldflags '-s -w' \
		-o $(CONTROLPLANE_ROOT)/bin/etcd.tmp go.etcd.io/etcd/server/v3
	mv -f $(CONTROLPLANE_ROOT)/bin/etcd.tmp $(CONTROLPLANE_ROOT)/bin/etcd

## controlplane-versions: print the versions of the built binaries
controlplane-versions: controlplane
	$(CONTROLPLANE_ROOT)/bin/kube-apiserver --version
	$(CONTROLPLANE_ROOT)/bin/etcd --version
	-$(CONTROLPLANE_ROOT)/bin/kube-controller-manager --version
	-$(CONTROLPLANE_ROOT)/bin/kube-scheduler --version
	-$(CONTROLPLANE_ROOT)/bin/kwok --version

## controlplane-clean: remove the built control-plane binaries
controlplane-clean:
	cd $(CONTROLPLANE_ROOT)/bin && rm -f kube-apiserver etcd kube-controller-manager kube-scheduler kwok kwok-stages.yaml \
		kube-apiserver.tmp etcd.tmp kube-controller-manager.tmp kube-scheduler.tmp kwok.tmp \
		.kube-apiserver-*.version .etcd-*.version .kube-controller-manager-*.version \
		.kube-scheduler-*.version .kwok-*.version
