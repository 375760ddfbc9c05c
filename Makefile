# statecraft: the two commands of the README are `make run` and `make test`.

GO       ?= go
FUZZTIME ?= 10s
SCENARIO ?= examples/objectpatch/target-appears.scenario.hcl

.PHONY: all build image run sim test unit scenarios fuzz vet fmt-check tidy-check hcl-fmt-check hygiene bench soak fidelity mutate faults

all: build

include hack/controlplane.mk

# The version stamped into the binary (`statecraft version`) and the image
# tag: the nearest v* tag, else the commit, with -dirty for local changes.
VERSION ?= $(shell git describe --tags --always --dirty --match 'v*' 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)

# bin/statecraft: static (CGO_ENABLED=0), stamped with VERSION and COMMIT.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/statecraft ./cmd/statecraft

# The container image, built without Docker or a base image (hack/image, with
# go-containerregistry): the static binary for linux/IMAGE_ARCH as
# /statecraft, run as the non-root user 65532, written as a tarball
# (bin/statecraft-image.tar: docker load, kind load image-archive, crane push)
# and an OCI layout (bin/statecraft-image: skopeo copy oci:...). Tagged
# IMAGE_REPO:VERSION and, unless HEAD is a v* release tag, IMAGE_REPO:dev,
# the tag the chart and examples/deploy name.
IMAGE_REPO ?= statecraft
IMAGE_ARCH ?= $(shell $(GO) env GOARCH)
RELEASE    := $(shell git describe --exact-match --tags --match 'v*' 2>/dev/null)
IMAGE_TAGS ?= $(IMAGE_REPO):$(VERSION) $(if $(RELEASE),,$(IMAGE_REPO):dev)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
image:
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/statecraft-linux-$(IMAGE_ARCH) ./cmd/statecraft
	cd hack/image && GOWORK=off GOFLAGS=-mod=readonly $(GO) run . -binary ../../bin/statecraft-linux-$(IMAGE_ARCH) \
		-tar ../../bin/statecraft-image.tar -layout ../../bin/statecraft-image \
		-version $(VERSION) -revision '$(COMMIT)' -created $(SOURCE_DATE_EPOCH) -arch $(IMAGE_ARCH) $(foreach t,$(IMAGE_TAGS),-tag $(t))

# The main job: a local cluster (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler and a kwok node, built from source into bin/ the first time)
# with the CRDs installed and the engine running against it; apply the
# examples with kubectl (the command prints how). Ctrl-C stops it all, and
# make with it, cleanly: the built binary replaces the recipe's shell (exec),
# so the exit status make sees is statecraft's own. DEV_FLAGS passes flags,
# e.g. make run DEV_FLAGS=--data-dir=bin/dev-data to keep the cluster's state.
DEV_FLAGS ?=
run: cluster build
	exec bin/statecraft dev $(DEV_FLAGS)

# The same lifecycle on the built-in simulated cluster: the example
# simulation, printed as a trace, in a second.
sim:
	$(GO) run ./cmd/statecraft sim $(SCENARIO)

# Every test. The control plane (kube-apiserver, etcd) is built from source
# into bin/ on first use, so the Kubernetes adapter tests run against a real
# API server; STATECRAFT_REQUIRE_CONTROLPLANE=1 makes a missing binary a
# failure instead of a skip. -timeout 30m: the controller package's
# end-to-end tests, the sample of fault schedules among them, take longer
# than go test's default 10 minutes on 2 loaded cores.
test: hygiene vet cluster image
	STATECRAFT_REQUIRE_CONTROLPLANE=1 $(GO) test -count=1 -timeout 45m ./...
	$(MAKE) fuzz
	$(GO) run ./cmd/statecraft test examples spec
	$(GO) run ./cmd/statecraft verify --quiet rules/policies
	$(MAKE) mutate

# Mutation testing of the conformance suite (spec/mutation.md): every mutant
# of the shipped policies (about 2,060; 12 min 43 s at --jobs 2 on two shared
# cores, 2026-12-02), against spec/conformance/known-survivors.txt: a
# survivor not on record fails, as does a recorded one now killed (remove
# it). MUTATE_SAMPLE=8 runs the fixed sample of the mutants whose IDs hash
# to 0 modulo 8, for a quicker look.
MUTATE_SAMPLE   ?= 1
MUTATE_MACHINES ?= objectpatch,autopatch,clusterextension,clusterobjectdeployment,clusterobjectset
mutate:
	$(GO) run ./cmd/statecraft test --mutate --machine $(MUTATE_MACHINES) --sample $(MUTATE_SAMPLE) --jobs 2 --budget 40m spec/conformance

# How faithfully the simulator answers as kube-apiserver does (issue 22):
# the differential test of adapters/fidelity over a larger run than the one
# make test holds at its thresholds. It prints the agreement per class and
# per kind, every distinct disagreement, and the shrunk reproduction of the
# most frequent ones of each class (FIDELITY_SHRINK per class; -1: all);
# FIDELITY.md records its figures. Same seed, same report.
FIDELITY_SEED      ?= 1
FIDELITY_SEQUENCES ?= 150
FIDELITY_LENGTH    ?= 40
FIDELITY_SHRINK    ?= 5
fidelity: controlplane
	STATECRAFT_REQUIRE_CONTROLPLANE=1 $(GO) test -count=1 -v -timeout 60m -run '^TestFidelity$$' ./adapters/fidelity/ -args \
		-fidelity.seed=$(FIDELITY_SEED) -fidelity.sequences=$(FIDELITY_SEQUENCES) -fidelity.length=$(FIDELITY_LENGTH) \
		-fidelity.shrink=$(FIDELITY_SHRINK) -fidelity.enforce=false -fidelity.report=-

# The fault schedules of issue 18, every one of them (make test runs a
# seeded sample of each): on kube-apiserver, the engine crashed after each
# of its writes, kube-apiserver restarted after each write (etcd kept), two
# elected replicas failing over and two shards reassigned at each write,
# informers held 1, 3 and 10 events behind, watch events delayed, dropped
# and duplicated, each checked for the safety properties, convergence
# within 30s and a quiet world afterwards; on the simulator, every
# conformance scenario crashed after each of the engine's writes and read
# 1, 3 and 10 writes stale, each ending in its fault-free final state. Each
# prints schedules run, faults injected and violations (RELIABILITY.md).
faults: controlplane
	STATECRAFT_REQUIRE_CONTROLPLANE=1 $(GO) test -count=1 -v -timeout 120m -run '^TestFaultSchedulesOnKube$$' ./controller/ -args -faults.all
	$(GO) test -count=1 -v -timeout 120m -run '^TestFaultSchedulesOnSimulator$$' ./scenario/ -args -faults.all

vet:
	$(GO) vet ./...

# The checks CI runs before the tests: Go formatting, go.mod and go.sum as
# `go mod tidy` leaves them (the root module and each module under hack/),
# and every shipped rule and scenario file in `statecraft fmt`'s layout.
hygiene: fmt-check tidy-check hcl-fmt-check

tidy-check:
	$(GO) mod tidy -diff
	@for d in hack/controlplane hack/etcd hack/kwok hack/image; do \
		echo "(cd $$d && go mod tidy -diff)"; (cd $$d && GOWORK=off $(GO) mod tidy -diff) || exit 1; done

hcl-fmt-check:
	$(GO) run ./cmd/statecraft fmt -check rules/policies examples spec

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# Short fuzzing of every fuzz target, FUZZTIME each; corpora live in
# testdata/fuzz. Each target prints its executions and executions per
# second (over FUZZTIME, baseline coverage included). A new interesting
# input is minimized for at most FUZZMINIMIZE (Go's default, 60s, would
# spend a short run minimizing); a failing input is kept in testdata/fuzz.
# Each target fuzzes from a fresh cache directory, so its baseline is the
# seed corpus: the cache in GOCACHE, shared by every clone on the machine,
# grows with each run, and checking its coverage took all of a short
# FUZZTIME on a loaded machine (0 executions). A run that fails only with
# "context deadline exceeded" and writes no failing input is go1.26's
# coordinator racing its own deadline (golang/go#75804), reported and not
# counted as a failure; any other failure, and any failing input, fails.
FUZZMINIMIZE ?= 20x
FUZZ_TARGETS = ./rules:FuzzLoadCompile ./jsonparse:FuzzParse ./library/objpatch:FuzzValidate \
	./library/objpatch:FuzzPlan ./scenario:FuzzParse ./adapters/sim:FuzzRequests
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		cache=$$(mktemp -d); \
		out=$$($(GO) test $$pkg -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) -args -test.fuzzcachedir=$$cache 2>&1); rc=$$?; \
		rm -rf "$$cache"; \
		execs=$$(printf '%s\n' "$$out" | sed -n 's/.*execs: \([0-9]*\).*/\1/p' | tail -1); execs=$${execs:-0}; \
		secs=$$(printf '%s\n' "$(FUZZTIME)" | sed -n 's/^\([0-9]*\)s$$/\1/p'); \
		rate=$$(if [ -n "$$secs" ] && [ "$$secs" -gt 0 ]; then echo "$$((execs / secs))/s"; else echo "?/s"; fi); \
		echo "fuzz $$pkg $$fn: $$execs executions in $(FUZZTIME) ($$rate)"; \
		if [ $$rc -ne 0 ] && printf '%s\n' "$$out" | grep -A1 -e '^--- FAIL: ' | grep -qx '    context deadline exceeded' \
			&& ! printf '%s\n' "$$out" | grep -q -e 'Failing input written' -e '^panic:'; then \
			echo "fuzz $$pkg $$fn: stopped by Go's fuzzing coordinator at the end of FUZZTIME with a bare \"context deadline exceeded\" and no failing input (golang/go#75804, fixed in go1.27): not a finding"; \
			rc=0; \
		fi; \
		if [ $$rc -ne 0 ]; then printf '%s\n' "$$out"; exit $$rc; fi; \
	done

# Every benchmark, and BENCHMARKS.md's generated tables rewritten from
# their output (internal/benchtables: date, commit, machine and load; the
# figures each table replaces become one line of its history). The output
# is kept in bin/bench.txt. Micro-benchmarks run the default 1s each; each
# simulation is one run (-benchtime=1x), abandoned after -sim.budget (10m)
# of wall time if it has not finished. -p 1: one package's benchmarks at a
# time (go test runs GOMAXPROCS packages at once by default, which on two
# cores would measure each benchmark beside another).
bench:
	@mkdir -p bin
	bash -o pipefail -c 'start=$$(date -u +%FT%TZ); load=$$(cut -d" " -f1-3 /proc/loadavg); \
		{ $(GO) test -p 1 -run "^$$" -bench . -benchmem $$($(GO) list ./... | grep -v "/scenario$$") && \
		  $(GO) test -run "^$$" -bench . -benchmem -benchtime=1x -timeout 0 ./scenario/ -args -sim.budget=10m; } 2>&1 | tee bin/bench.txt && \
		$(GO) run ./internal/benchtables -in bin/bench.txt -started $$start -load-start "$$load" BENCHMARKS.md'

# The real-API-server benchmark alone: 2,000 ObjectPatches converged by
# statecraft, a plain client-go loop and a controller-runtime reconciler,
# interleaved in an order rotated every round, three rounds per run, with
# each round's and the median ratios and CPU per object (figures in
# BENCHMARKS.md, whose kube table it rewrites). -args -kube.n=N changes the
# size, -kube.rounds=R the rounds.
.PHONY: bench-kube
bench-kube: controlplane
	@mkdir -p bin
	bash -o pipefail -c 'start=$$(date -u +%FT%TZ); load=$$(cut -d" " -f1-3 /proc/loadavg); \
		STATECRAFT_REQUIRE_CONTROLPLANE=1 $(GO) test -run "^$$" -bench "^BenchmarkConvergeObjectPatches$$" -benchtime=1x -timeout 30m ./controller/ 2>&1 | tee bin/bench-kube.txt && \
		$(GO) run ./internal/benchtables -in bin/bench-kube.txt -started $$start -load-start "$$load" BENCHMARKS.md'

# The load test of issue 10 (not in every CI run): 10,000 ObjectPatches on
# the local API server while another actor drifts targets for 10 minutes;
# queue depth bounded, heap flat, everything converged afterwards. Smaller:
# make soak SOAK_OBJECTS=1000 SOAK_FOR=2m
SOAK_OBJECTS ?= 10000
SOAK_FOR     ?= 10m
soak: controlplane
	STATECRAFT_SOAK=1 STATECRAFT_SOAK_OBJECTS=$(SOAK_OBJECTS) STATECRAFT_SOAK_FOR=$(SOAK_FOR) STATECRAFT_REQUIRE_CONTROLPLANE=1 \
		$(GO) test -count=1 -run '^TestSoak$$' -v -timeout 60m ./controller/
