//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	cacheDir  string // the project cache: node_modules with the pinned packages, logs/ of failed scenarios
	serverBin string // the gemini-search-mcp binary under test

	summary struct {
		sync.Mutex
		passed, failed, skipped int
	}
)

// envNetns marks the test binary re-executed inside its own network namespace.
const envNetns = "E2E_NETNS"

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if code, ok := reexecLoopbackOnly(); ok {
		return code
	}
	var err error
	if cacheDir, err = filepath.Abs(cmpOr(os.Getenv("E2E_CACHE"), filepath.Join("..", ".cache", "e2e"))); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	for _, bin := range []string{"gemini", "firecrawl-mcp", "mcp-inspector", "mcp-remote", "conformance"} {
		if _, err := os.Stat(filepath.Join(cacheDir, "node_modules", ".bin", bin)); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: %s is not installed in %s: run `make e2e`, which installs the pinned npm packages first\n", bin, cacheDir)
			return 1
		}
	}
	if serverBin = os.Getenv("E2E_SERVER"); serverBin == "" {
		dir, err := os.MkdirTemp("", "gsm-e2e-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		serverBin = filepath.Join(dir, "gemini-search-mcp")
		if out, err := exec.Command("go", "build", "-o", serverBin, "../cmd/gemini-search-mcp").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: build the server: %v\n%s", err, out)
			return 1
		}
	}
	os.RemoveAll(logDir()) // logs of an earlier run would mislead

	if os.Getenv(envNetns) != "" {
		fmt.Println("e2e: network: loopback only (own network namespace)")
	} else {
		fmt.Println("e2e: network: no private network namespace here; every program is pointed at 127.0.0.1 only")
	}
	code := m.Run()
	summary.Lock()
	if summary.passed+summary.failed+summary.skipped > 0 {
		fmt.Printf("%d passed, %d failed, %d skipped\n", summary.passed, summary.failed, summary.skipped)
	}
	summary.Unlock()
	printBenchTable()
	return code
}

// reexecLoopbackOnly runs this test binary again inside a new network namespace that has nothing but a
// loopback interface, so that no program of the chain (the Gemini CLI, npx, firecrawl-mcp, the clients) can
// reach anything but 127.0.0.1, whatever it tries. It reports ok=false when it did not: already inside,
// not Linux, or no permission to create a namespace (then the tests run here, relying on configuration).
func reexecLoopbackOnly() (code int, ok bool) {
	if os.Getenv(envNetns) != "" || runtime.GOOS != "linux" {
		return 0, false
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return 0, false
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		return 0, false
	}
	if exec.Command(unshare, "--net", ip, "link", "set", "lo", "up").Run() != nil {
		return 0, false
	}
	args := append([]string{"--net", "--", "sh", "-c", `"$0" link set lo up && exec "$@"`, ip, os.Args[0]}, os.Args[1:]...)
	cmd := exec.Command(unshare, args...)
	cmd.Env = append(os.Environ(), envNetns+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // go test's own timeout kills us
	err = cmd.Run()
	if ee, isExit := err.(*exec.ExitError); isExit {
		return ee.ExitCode(), true
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: run in a network namespace:", err)
		return 1, true
	}
	return 0, true
}

func logDir() string { return filepath.Join(cacheDir, "logs") }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// slug turns a scenario name into a file name: "1 http inspector+sdk" → "1-http-inspector-sdk".
func slug(name string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, name), "-")
}
