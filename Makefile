# fastmcp — build, test, benchmark and fuzz.
GO        ?= go
PKGS      ?= ./...
FUZZTIME  ?= 10s
BENCHTIME ?= 1s

.PHONY: test fmt-check vet staticcheck tidy-check unit allocs interop cluster bench fuzz build

## test: everything a change must pass (formatting, vet, staticcheck, a tidy go.mod, race tests,
## allocation budgets, interop lane, cluster lane).
test: fmt-check vet staticcheck tidy-check unit allocs interop cluster

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

## staticcheck: the version pinned by go.mod's tool directive.
staticcheck:
	$(GO) tool staticcheck $(PKGS)

## tidy-check: fails when `go mod tidy` would change go.mod or go.sum (of every module).
tidy-check:
	$(GO) mod tidy -diff
	cd bench/peers && $(GO) mod tidy -diff
	cd oauth/clientinterop && $(GO) mod tidy -diff

## unit: with a throwaway PostgreSQL for the tasks/pgstore tests (scripts/with-postgres.sh).
unit:
	scripts/with-postgres.sh $(GO) test -race -shuffle=on -count=1 $(PKGS)
	cd oauth/clientinterop && $(GO) vet ./... && $(GO) test -race -count=1 ./...

## allocs: allocation and memory budget tests run without -race (the race detector allocates;
## the tests of files built with !race run only here).
allocs:
	$(GO) test -count=1 -run 'Allocs|Budget|IdleStreamMemory' $(PKGS)

## interop: the official conformance suite and clients against our servers (see interop/).
interop:
	@if [ -x interop/run.sh ]; then interop/run.sh; else echo "interop: no lane yet"; fi

## cluster: three serve replicas behind HAProxy sharing NATS (then the PostgreSQL bus), a state
## key file and a PostgreSQL Tasks store (interop/cluster.sh, issue 22).
cluster:
	interop/cluster.sh

build:
	$(GO) build -o bin/fastmcp-bench ./cmd/fastmcp-bench

## bench: every Go benchmark, benchstat-ready.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)

## fuzz: each fuzz target for FUZZTIME.
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done
