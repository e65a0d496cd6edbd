# Gemini Search MCP: web research for MCP clients through a Gemini CLI agent.
.DEFAULT_GOAL := help
SHELL := bash

GO      ?= go
BIN     := bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: help build install run test fuzz load vuln lint bench bench-go clean e2e run-tray screenshot dist release

help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  \033[36m%-10s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# On Windows the tray is a GUI program: no console window opens with it, at login either. Its binaries end in .exe,
# which the tray looks for next to itself (the stdio entry of Claude Desktop).
WINDOWS      = $(filter windows,$(shell $(GO) env GOOS))
EXE          = $(if $(WINDOWS),.exe)
TRAY_LDFLAGS = $(LDFLAGS)$(if $(WINDOWS), -H=windowsgui)

# As in the releases (.goreleaser.yaml), the binaries are built without cgo: static, with no C library to load and
# no C thread stacks, which starts them sooner and keeps about 1 MB less resident. Only the macOS tray needs cgo.
TRAY_CGO = $(if $(filter darwin,$(shell $(GO) env GOOS)),1,0)

build: ## Build bin/gemini-search-mcp and bin/gemini-search-tray
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/gemini-search-mcp$(EXE) ./cmd/gemini-search-mcp
	CGO_ENABLED=$(TRAY_CGO) $(GO) build -trimpath -ldflags '$(TRAY_LDFLAGS)' -o $(BIN)/gemini-search-tray$(EXE) ./cmd/tray

# Where go install puts binaries: GOBIN, else GOPATH/bin.
INSTALL_DIR ?= $(or $(shell $(GO) env GOBIN),$(shell $(GO) env GOPATH)/bin)

install: BIN = $(INSTALL_DIR)
install: build ## Install both binaries into GOBIN (else GOPATH/bin), as go install would
	@echo "installed gemini-search-mcp and gemini-search-tray into $(INSTALL_DIR)"
	@case ":$$PATH:" in *":$(INSTALL_DIR):"*) ;; *) echo "note: $(INSTALL_DIR) is not on your PATH: add it";; esac

run: build ## Build and serve MCP over HTTP on 127.0.0.1:3000 (MCP_SERVER_HOST/MCP_SERVER_PORT override)
	./$(BIN)/gemini-search-mcp --http

run-tray: build ## Build and start the tray app (MCP at 127.0.0.1:3000, settings page from its menu)
	./$(BIN)/gemini-search-tray

# The open tray menu under Xvfb with an SNI host, with the fake CLI: a search running, a first run without the CLI
# (the setup problem), a finished search (Recent research). Needs dbus, xvfb, xdotool, imagemagick and
# haskell-gtk-sni-tray-utils (see .ci/apt-packages).
SCREENSHOTS ?= .cache/screenshots

screenshot: ## Screenshot the open tray menu into .cache/screenshots/tray-{running,setup,recent}.png (Xvfb)
	SCREENSHOT_DIR=$(abspath $(SCREENSHOTS)) $(GO) test -count=1 -run '^TestScreenshot$$' -v ./cmd/tray

test: ## Run all tests with the race detector
	$(GO) test -race -count=1 ./...

# Fuzz targets for the code that reads or writes what comes from outside: the CLI's stream-json, .env files,
# settings.json, the prompts and the agent's report. go test fuzzes one target per run, so they run one after
# another, FUZZTIME each. What the fuzzer generates stays in the Go cache; only an input that fails is written, into
# the package's testdata/fuzz, where it becomes a seed that make test runs.
FUZZTIME ?= 60s

fuzz: ## Fuzz the stream-json, .env, settings.json, prompt and report parsers and writers, FUZZTIME (60s) each
	$(GO) test -run '^$$' -fuzz '^FuzzCollector$$' -fuzztime $(FUZZTIME) ./internal/gemini
	$(GO) test -run '^$$' -fuzz '^FuzzUpdateDotenv$$' -fuzztime $(FUZZTIME) ./internal/config
	$(GO) test -run '^$$' -fuzz '^FuzzMerge$$' -fuzztime $(FUZZTIME) ./internal/workspace
	$(GO) test -run '^$$' -fuzz '^FuzzRender$$' -fuzztime $(FUZZTIME) ./prompts
	$(GO) test -run '^$$' -fuzz '^FuzzExtractReport$$' -fuzztime $(FUZZTIME) ./internal/research

# End-to-end tests: the real Gemini CLI, firecrawl-mcp, MCP clients and the MCP conformance suite, whose expected
# failures are listed in e2e/conformance-expected-failures.txt (pinned in npm/package.json, installed
# into E2E_CACHE) against a mock Gemini API and a fake Firecrawl API on 127.0.0.1. go test runs without a package
# argument, so that it shows the suite's output (one line per scenario) on success too.
E2E_CACHE   ?= .cache/e2e
E2E_TIMEOUT ?= 20m

# The scenarios of research that outlives the call (e2e/jobs_test.go) run side by side: each waits about 90 s on
# its mock's holds, not on the machine, so all of them run at once whatever its cores.
e2e: build ## Run the end-to-end tests with the real Gemini CLI, firecrawl-mcp and MCP clients, offline
	./e2e/install.sh $(E2E_CACHE)
	cd e2e && E2E_CACHE=$(abspath $(E2E_CACHE)) E2E_SERVER=$(abspath $(BIN)/gemini-search-mcp) \
		$(GO) test -tags e2e -count=1 -parallel 4 -timeout $(E2E_TIMEOUT)

# The server under load, in process, over HTTP with the fake CLI: 1,000 searches from 20 MCP clients and 5,000
# short sessions; prints the latencies and the goroutines, open files, heap and resident memory before and after,
# which must be back near where they were (make test runs the same test with a small load).
load: ## Load the HTTP server (1,000 searches from 20 clients, 5,000 sessions, fake CLI), print latencies and leaks
	LOAD=full $(GO) test -count=1 -run '^TestLoadLeavesNothingBehind$$' -v -timeout 30m ./internal/app

# govulncheck (from the Go module proxy, pinned) checks the code and its dependencies against the Go vulnerability
# database: vuln.go.dev, or GOVULNDB (a mirror, or a file:// copy for offline machines).
GOVULNCHECK ?= golang.org/x/vuln/cmd/govulncheck@v1.9.0

vuln: ## Check for known vulnerabilities in the code and its dependencies (govulncheck; needs vuln.go.dev or GOVULNDB)
	$(GO) run $(GOVULNCHECK) $(if $(GOVULNDB),-db $(GOVULNDB)) ./...

lint: ## Check formatting (gofmt), run go vet (also for Windows and make dist's checks), build the server for macOS without cgo
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	GOOS=darwin CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/gemini-search-mcp # it must link no tray code
	$(GO) vet -tags dist ./packaging/

# make bench measures the built binaries as users meet them and prints one table, each figure beside its target
# (e2e/bench_test.go's BenchmarkTable): idle memory and initialize, searches on the real Gemini CLI (from the e2e
# cache, installed as make e2e installs it) cold and warm, its ACP worker against pre-spawned one-shot processes
# (e2e/acp_bench_test.go), the API backend's share, cache hits on long reports, 100 calls at once over stdio and
# HTTP. Offline, against the mock Gemini API.
# BENCH_RUNS runs of each (the median), after one to warm up. bench-go runs the Go benchmarks of every package.
BENCH_RUNS ?= 10

bench: build ## Measure the built server and tray against the mock Gemini API and print one table with the targets (offline)
	./e2e/install.sh $(E2E_CACHE)
	cd e2e && E2E_CACHE=$(abspath $(E2E_CACHE)) E2E_SERVER=$(abspath $(BIN)/gemini-search-mcp) \
		E2E_TRAY=$(abspath $(BIN)/gemini-search-tray) BENCH_RUNS=$(BENCH_RUNS) \
		$(GO) test -tags e2e -count=1 -run '^$$' -bench '^BenchmarkTable$$' -benchtime 1x -timeout 20m

bench-go: ## Run the Go benchmarks of every package (the research library, parts of long reports, the server's share)
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Releases: GoReleaser, run as a Go module at a pinned version (its npm wrapper downloads a binary), builds what
# .goreleaser.yaml lists: the headless server for Linux, Windows and macOS, the tray for Linux and Windows (macOS's
# needs a Mac), archives, .deb and .rpm packages, a Claude Desktop bundle per platform (packaging/cmd/mcpb, with the
# mcpb CLI pinned in packaging/package.json) and checksums; packaging/cmd/serverjson then writes the MCP Registry
# entry. make dist builds a snapshot, offline, and checks all of it (packaging/dist_test.go).
GORELEASER ?= github.com/goreleaser/goreleaser/v2@v2.15.1
DIST_TIMEOUT ?= 10m
# GoReleaser reads the commit from git only in a clone with a remote. A clone without one names the repository to
# it through git's GIT_CONFIG_* variables, which change no file; else a snapshot's version would say "none".
NO_REMOTE_ENV = $(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url \
	GIT_CONFIG_VALUE_0=https://github.com/gemini-search-mcp/gemini-search-mcp.git)

dist: ## Build a snapshot release into dist/ (archives, .deb, .rpm, .mcpb, server.json) and check it, offline
	$(NO_REMOTE_ENV) $(GO) run $(GORELEASER) release --snapshot --clean
	$(GO) run ./packaging/cmd/serverjson -dist dist
	$(GO) test -tags dist -count=1 -timeout $(DIST_TIMEOUT) -v ./packaging/

release: ## Publish the release of the tag at HEAD to GitHub (GITHUB_TOKEN), then write dist/server.json
	$(GO) run $(GORELEASER) release --clean
	$(GO) run ./packaging/cmd/serverjson -dist dist

clean: ## Remove build outputs
	rm -rf $(BIN) dist
