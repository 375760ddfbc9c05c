# statecraft: the two commands of the README are `make run` and `make test`.

GO       ?= go
FUZZTIME ?= 10s
SCENARIO ?= examples/objectpatch/target-appears.scenario.hcl

.PHONY: all build run sim test unit scenarios fuzz vet fmt-check bench soak

all: build

include hack/controlplane.mk

build:
	$(GO) build -o bin/statecraft ./cmd/statecraft

# The main job: a local control plane (kube-apiserver and etcd, built from
# source into bin/ the first time) with the CRDs installed and the engine
# running against it; apply the examples with kubectl (the command prints
# how). Ctrl-C stops it all.
run: controlplane
	$(GO) run ./cmd/statecraft dev

# The same lifecycle on the built-in simulated cluster: the example
# simulation, printed as a trace, in a second.
sim:
	$(GO) run ./cmd/statecraft sim $(SCENARIO)

# Every test. The control plane (kube-apiserver, etcd) is built from source
# into bin/ on first use, so the Kubernetes adapter tests run against a real
# API server; STATECRAFT_REQUIRE_CONTROLPLANE=1 makes a missing binary a
# failure instead of a skip.
test: fmt-check vet controlplane
	STATECRAFT_REQUIRE_CONTROLPLANE=1 $(GO) test -count=1 ./...
	$(MAKE) fuzz
	$(GO) run ./cmd/statecraft test examples spec

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# Short fuzzing of every fuzz target, FUZZTIME each; corpora live in
# testdata/fuzz. Each target prints its executions and executions per
# second (over FUZZTIME, baseline coverage included). A new interesting
# input is minimized for at most FUZZMINIMIZE (Go's default, 60s, would
# spend a short run minimizing); a failing input is kept in testdata/fuzz.
FUZZMINIMIZE ?= 20x
FUZZ_TARGETS = ./rules:FuzzLoadCompile ./jsonparse:FuzzParse ./library/objpatch:FuzzValidate \
	./library/objpatch:FuzzPlan ./scenario:FuzzParse ./adapters/sim:FuzzRequests
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		out=$$($(GO) test $$pkg -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) 2>&1); rc=$$?; \
		execs=$$(printf '%s\n' "$$out" | sed -n 's/.*execs: \([0-9]*\).*/\1/p' | tail -1); execs=$${execs:-0}; \
		secs=$$(printf '%s\n' "$(FUZZTIME)" | sed -n 's/^\([0-9]*\)s$$/\1/p'); \
		rate=$$(if [ -n "$$secs" ] && [ "$$secs" -gt 0 ]; then echo "$$((execs / secs))/s"; else echo "?/s"; fi); \
		echo "fuzz $$pkg $$fn: $$execs executions in $(FUZZTIME) ($$rate)"; \
		if [ $$rc -ne 0 ]; then printf '%s\n' "$$out"; exit $$rc; fi; \
	done

# Every benchmark; figures and commands in BENCHMARKS.md. Micro-benchmarks
# run the default 1s each; each simulation is one run (-benchtime=1x),
# abandoned after -sim.budget (10m) of wall time if it has not finished.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $$($(GO) list ./... | grep -v '/scenario$$')
	$(GO) test -run '^$$' -bench . -benchmem -benchtime=1x -timeout 0 ./scenario/ -args -sim.budget=10m

# The real-API-server benchmark alone: 2,000 ObjectPatches converged by
# statecraft, a plain client-go loop and a controller-runtime reconciler in
# one run (figures in BENCHMARKS.md). -args -kube.n=N changes the size.
.PHONY: bench-kube
bench-kube: controlplane
	STATECRAFT_REQUIRE_CONTROLPLANE=1 $(GO) test -run '^$$' -bench '^BenchmarkConvergeObjectPatches$$' -benchtime=1x -timeout 30m ./controller/

# The load test of issue 10 (not in every CI run): 10,000 ObjectPatches on
# the local API server while another actor drifts targets for 10 minutes;
# queue depth bounded, heap flat, everything converged afterwards. Smaller:
# make soak SOAK_OBJECTS=1000 SOAK_FOR=2m
SOAK_OBJECTS ?= 10000
SOAK_FOR     ?= 10m
soak: controlplane
	STATECRAFT_SOAK=1 STATECRAFT_SOAK_OBJECTS=$(SOAK_OBJECTS) STATECRAFT_SOAK_FOR=$(SOAK_FOR) STATECRAFT_REQUIRE_CONTROLPLANE=1 \
		$(GO) test -count=1 -run '^TestSoak$$' -v -timeout 60m ./controller/
