// Package e2e holds the end-to-end tests, behind the build tag e2e: real MCP clients (the MCP Inspector CLI, and a
// script on the official TypeScript SDK, directly or through mcp-remote) drive bin/gemini-search-mcp, which runs the
// real Gemini CLI against a mock Gemini API (internal/mockgemini) and, through it, the real firecrawl-mcp against a
// fake Firecrawl API (internal/fakefirecrawl), all on 127.0.0.1. The scenarios run the CLI backend (GEMINI_BACKEND=cli)
// unless they say otherwise: 12 to 14 run the Gemini API backend, alone and as auto's choice (backends_test.go).
// Scenario 17 (conformance_test.go) runs the official MCP conformance suite's server scenarios on a pinned Node.js 24
// and holds its failing checks to conformance-expected-failures.txt. Scenarios 22 to 26 (jobs_test.go) run research
// that outlives the clients' 60 s through the SDK, mcp-remote and the Inspector, on both backends, and a server
// killed mid-research. Run
// them with `make e2e`, which installs the pinned npm packages of npm/package.json into .cache/e2e first.
//
// BenchmarkBackends (bench_test.go, run by `make bench`) times a search on either backend against the same mock.
package e2e
