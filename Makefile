# aplite: one binary that stores events and answers APL.
GO        ?= go
BIN       ?= aplite
DATA      ?= ./data
ADDR      ?= 127.0.0.1:8080
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
CORE_PKGS := ./vector/... ./parser/... ./core/...
# Packages with goroutines or shared state run under the race detector.
RACE_PKGS := ./core/... ./server/...

.PHONY: all build run demo deploy-check test vet tidy cluster fuzz race unit wasm-core fuzz-seeds compat bench peers wasm web console-soak console-later fmt lint clean conformance difftest catalog-scale memory

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

## run: serve on ADDR (default 127.0.0.1:8080) with DATA (./data) as the data directory.
run: build
	./$(BIN) serve -addr $(ADDR) -data $(DATA)

## demo: serve on ADDR with a dataset of generated HTTP logs of the last two hours.
demo: build
	./$(BIN) demo -addr $(ADDR)

## test: everything CI checks.
test: tidy vet unit race wasm-core fuzz-seeds compat cluster k8s-check
	@command -v chromium >/dev/null 2>&1 || echo 'make test: chromium is not installed: the console browser tests were SKIPPED (apt-get install chromium)'

vet:
	$(GO) vet ./...

# tidy: go.mod lists exactly what the code imports (go mod tidy would
# change nothing); prints the diff and fails otherwise.
tidy:
	$(GO) mod tidy -diff

unit:
	$(GO) test -count=1 -timeout 8m $(shell $(GO) list ./... | grep -v -e /core -e /server -e /cluster)

# The race detector makes core's tests 5-20 times slower; a package's
# tests trim their largest matrices under it (testutil.Race), and the
# timeout leaves room for a machine shared with other builds.
race:
	$(GO) test -count=1 -race -timeout 15m $(RACE_PKGS)

wasm-core:
	GOOS=js GOARCH=wasm $(GO) build $(CORE_PKGS) ./wasm/...

# Runs every Fuzz target over its committed seed corpus (no new inputs).
fuzz-seeds:
	$(GO) test -count=1 -run '^Fuzz' $(CORE_PKGS)

# The official Go client (axiom-go) against a live server; its own module so
# the client's dependencies stay out of aplite's go.mod.
compat:
	cd compat && $(GO) vet ./... && $(GO) test -count=1 ./...

# cluster: one ingest node, two query nodes and a single node over a real
# S3-compatible store (SeaweedFS, built once by scripts/seaweedfs and
# cached outside the repository).
cluster:
	APLITE_WEED="$$(scripts/seaweedfs)" $(GO) test -count=1 -timeout 10m ./cluster/

# deploy-check: deploy/Dockerfile's go build line as a plain build (a
# static binary that runs) and the systemd unit (systemd-analyze verify);
# outside make test, whose cold -trimpath build would take minutes.
deploy-check: k8s-check
	APLITE_DEPLOY_BUILD=1 $(GO) test -count=1 -run 'TestDockerfile|TestSystemdUnit' -v .

# k8s-check: the Kubernetes manifests in deploy/k8s decode strictly into
# the API types of k8s.io/api (from the Go module proxy, in a module of its
# own so aplite's go.mod stays as it is) and hang together; the topology
# they start is the one cluster/k8s_test.go runs on loopback.
.PHONY: k8s-check
k8s-check:
	cd deploy/k8s/check && $(GO) vet ./... && $(GO) test -count=1 ./...

# fuzz: every fuzz target for FUZZTIME each (default 10m; outside make
# test): the decoders, gzip/zstd bodies, OTLP, the APL parser, the block,
# catalog, WAL and partial-result readers, Parquet files. Prints a table.
fuzz:
	FUZZTIME=$${FUZZTIME:-10m} scripts/fuzz

# difftest: generated queries over generated real-shaped data, each
# answered every way that must agree (internal/difftest: workers, result
# cache, buffer, two nodes, compaction, ternary partitions, WASM under
# Node). SEED and N (queries) or MINUTES set the run; a failure prints
# the SEED and N that re-run it. make test runs a 60-query smoke (unit).
SEED    ?= 1
N       ?= 2000
MINUTES ?= 0
difftest:
	DIFFTEST_SEED=$(SEED) DIFFTEST_N=$(N) DIFFTEST_MINUTES=$(MINUTES) DIFFTEST_WASM=1 \
		$(GO) test -count=1 -v -timeout 0 -run '^TestDifftest' ./internal/difftest/

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./bench/...

# memory: the query-only peak RSS of a fresh server over 10M events, the
# seven reference queries five times each (issue 29), fails over
# MEMORY_MAX_MB (default 550: 450-510 measured, DuckDB 492, 940-1030
# before issue 29's changes). The settled data directory is built on the
# first run in MEMORY_DATA (about 25 minutes, 850 MB) and kept. Not in
# make test; make test's guard is TestColumnCacheBytesPerRow.
MEMORY_DATA   ?= $(HOME)/.cache/aplite-mem10m
MEMORY_MAX_MB ?= 550
memory:
	APLITE_MEMORY_DATA=$(MEMORY_DATA) APLITE_MEMORY_EVENTS=10000000 APLITE_MEMORY_MAX_MB=$(MEMORY_MAX_MB) \
		$(GO) test -count=1 -run '^$$' -bench QueryMemory -benchtime 1x -timeout 60m ./bench/

# catalog-scale: the object-storage catalog, formats 2 and 3, at 10^5 and
# 10^6 blocks of one dataset in the in-memory object store (issue 28;
# minutes and a few GB, not in make test, which builds 10^3 in format 3).
catalog-scale:
	for n in 100000 1000000; do APLITE_CATALOG_BLOCKS=$$n $(GO) test -count=1 -v -timeout 60m -run '^TestCatalogScale$$' ./core/store/ || exit 1; done

# peers: aplite beside DuckDB and chDB on the same generated NDJSON (not
# part of make test: it installs the engines from npm and takes minutes).
# PEERS_EVENTS, PEERS_RUNS and PEERS_SHAPE set the run; see bench/README.md.
peers:
	cd bench/peers && (npm ci --no-audit --no-fund || npm install --no-audit --no-fund) && node run.mjs

# wasm: the engine for the browser, embedded gzip-compressed in the
# console (2.8 MB instead of 11 MB in the binary and in git); -n keeps the
# archive free of names and times, so the build is reproducible.
CONSOLE_ASSETS := server/console/assets
# console-soak: offline sessions in headless Chromium (drop an NDJSON file,
# query, cancel, take, query again), counting hangs and the first answer's
# time; not in make test (minutes). SESSIONS=50 EVENTS=1000000 by default;
# FILE=dir/events.ndjson keeps the generated file there; an existing
# dir/events.parquet is dropped as it is.
console-soak:
	APLITE_SOAK_SESSIONS=$(or $(SESSIONS),50) APLITE_SOAK_EVENTS=$(or $(EVENTS),1000000) APLITE_SOAK_FILE=$(FILE) $(GO) test -count=1 -timeout 6h -v -run TestBrowserOfflineSoak ./server/console/

# console-later: later queries over a dropped file (FILE=dir/events.ndjson
# or .parquet, of bench/gen events) in headless Chromium against
# aplite query -in on the same file, medians of 5 (issue 26); not in make
# test (minutes).
console-later:
	APLITE_LATER_FILE=$(FILE) $(GO) test -count=1 -timeout 2h -v -run TestBrowserLaterQueries ./server/console/

wasm:
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags '-s -w' -o $(CONSOLE_ASSETS)/aplite.wasm ./wasm
	gzip -9 -n -f $(CONSOLE_ASSETS)/aplite.wasm
	@ls -l $(CONSOLE_ASSETS)/aplite.wasm.gz

# web: every built console asset (the engine and the Go toolchain's
# wasm_exec.js, which must match the Go that built the engine).
web: wasm
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $(CONSOLE_ASSETS)/wasm_exec.js

fmt:
	gofmt -w $(shell git ls-files '*.go')

lint: vet tidy
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

conformance:
	../shared/conformance/run

clean:
	rm -f $(BIN)
