//go:build dist

package packaging

// The checks make dist runs on what GoReleaser built into dist/ (DIST, else ../dist), offline: every archive,
// package and bundle is there and in the checksums; the archives hold what they should; the .deb, unpacked, runs;
// no package runs a script at install; the Windows tray is a GUI program; each bundle passes mcpb validate and, once
// installed the way Claude Desktop installs it, serves over stdio; server.json fits the registry's schema; and all
// of them carry the one version GoReleaser stamped. A fake Gemini CLI (the test binary itself) answers the searches:
// nothing leaves 127.0.0.1.
//
//	go test -tags dist -count=1 ./packaging

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

func TestMain(m *testing.M) {
	geminitest.Main() // the fake Gemini CLI, when the server under test runs this binary as one
	os.Exit(m.Run())
}

// artifact is an entry of GoReleaser's dist/artifacts.json.
type artifact struct {
	Name   string         `json:"name"`
	Path   string         `json:"path"` // relative to the repository root
	GOOS   string         `json:"goos"`
	GOARCH string         `json:"goarch"`
	Type   string         `json:"type"`
	Extra  map[string]any `json:"extra"`
}

// build is what GoReleaser built: dist/metadata.json and dist/artifacts.json.
type build struct {
	dir       string // dist/
	root      string // the repository, which artifact paths are relative to
	Version   string `json:"version"`
	Tag       string `json:"tag"`
	Runtime   struct{ GOOS string }
	artifacts []artifact
}

var (
	loadOnce sync.Once
	loaded   *build
	loadErr  error
)

func dist(t *testing.T) *build {
	t.Helper()
	loadOnce.Do(func() {
		b := &build{dir: os.Getenv("DIST"), root: ".."}
		if b.dir == "" {
			b.dir = filepath.Join(b.root, "dist")
		}
		data, err := os.ReadFile(filepath.Join(b.dir, "metadata.json"))
		if err != nil {
			loadErr = fmt.Errorf("%w: run make dist, which builds dist/ first", err)
			return
		}
		if loadErr = json.Unmarshal(data, b); loadErr != nil {
			return
		}
		if data, loadErr = os.ReadFile(filepath.Join(b.dir, "artifacts.json")); loadErr != nil {
			return
		}
		loadErr = json.Unmarshal(data, &b.artifacts)
		loaded = b
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

// file is the path of name in dist/.
func (b *build) file(name string) string { return filepath.Join(b.dir, name) }

// find returns the artifacts of type typ (and, when id is set, of that build or archive id).
func (b *build) find(typ, id string) []artifact {
	var out []artifact
	for _, a := range b.artifacts {
		if a.Type == typ && (id == "" || a.Extra["ID"] == id) {
			out = append(out, a)
		}
	}
	return out
}

// archiveName is the archive of p, as users download it.
func (b *build) archiveName(p Platform) string {
	ext := ".tar.gz"
	if p.GOOS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("gemini-search-mcp_%s_%s%s", b.Version, p, ext)
}

// hasTray reports whether a release built here ships the tray for p: macOS's needs a Mac.
func (b *build) hasTray(p Platform) bool { return p.GOOS != "darwin" || b.Runtime.GOOS == "darwin" }

func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func TestEverythingIsBuiltAndSummed(t *testing.T) {
	b := dist(t)
	if !strings.Contains(b.Version, "SNAPSHOT") && b.Tag != "v"+b.Version {
		t.Errorf("version %q from tag %q: want the tag's version, or a snapshot that says so", b.Version, b.Tag)
	}
	want := []string{"server.json"}
	for _, p := range Platforms {
		want = append(want, b.archiveName(p), BundleName(b.Version, p))
	}
	packages := b.find("Linux Package", "")
	var formats []string
	for _, a := range packages {
		formats = append(formats, path.Ext(a.Name)+" "+a.GOARCH)
		want = append(want, a.Name)
	}
	slices.Sort(formats)
	if wantFormats := []string{".deb amd64", ".deb arm64", ".rpm amd64", ".rpm arm64"}; !slices.Equal(formats, wantFormats) {
		t.Errorf("Linux packages %q, want %q", formats, wantFormats)
	}
	for _, name := range want {
		if _, err := os.Stat(b.file(name)); err != nil {
			t.Errorf("dist lacks %s: %v", name, err)
		}
	}

	checksums := b.file(fmt.Sprintf("gemini-search-mcp_%s_checksums.txt", b.Version))
	data, err := os.ReadFile(checksums)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for line := range strings.Lines(string(data)) {
		if sum, name, ok := strings.Cut(strings.TrimSpace(line), "  "); ok {
			sums[name] = sum
		}
	}
	for _, name := range want {
		if name == "server.json" { // the registry's copy, not a download
			continue
		}
		if sums[name] == "" {
			t.Errorf("%s is not in %s", name, filepath.Base(checksums))
		} else if got := sha256File(t, b.file(name)); got != sums[name] {
			t.Errorf("%s: sha256 %s, the checksums file says %s", name, got, sums[name])
		}
	}
}

// entry is a file read from an archive.
type entry struct {
	mode os.FileMode
	data []byte
}

func readArchive(t *testing.T, file string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	if strings.HasSuffix(file, ".zip") || strings.HasSuffix(file, ".mcpb") {
		r, err := zip.OpenReader(file)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for _, f := range r.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			out[f.Name] = entry{f.Mode(), data}
		}
		return out
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = entry{h.FileInfo().Mode(), data}
	}
}

// subsystem is the Windows subsystem an executable asks for.
func subsystem(t *testing.T, exe []byte) uint16 {
	t.Helper()
	f, err := pe.NewFile(bytes.NewReader(exe))
	if err != nil {
		t.Fatal(err)
	}
	header, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok {
		t.Fatalf("not a 64-bit PE image: %T", f.OptionalHeader)
	}
	return header.Subsystem
}

func TestArchives(t *testing.T) {
	b := dist(t)
	for _, p := range Platforms {
		t.Run(p.String(), func(t *testing.T) {
			t.Parallel()
			files := readArchive(t, b.file(b.archiveName(p)))
			dir := strings.TrimSuffix(strings.TrimSuffix(b.archiveName(p), ".zip"), ".tar.gz") + "/"
			want := []string{"README.md", "LICENSE", ".env.example", "gemini-search-mcp" + p.Exe()}
			if b.hasTray(p) {
				want = append(want, "gemini-search-tray"+p.Exe())
			}
			var names []string
			for name := range files {
				names = append(names, name)
			}
			for _, name := range want {
				f, ok := files[dir+name]
				if !ok {
					t.Errorf("%s lacks %s%s; it holds %q", b.archiveName(p), dir, name, names)
					continue
				}
				if strings.HasPrefix(name, "gemini-search-") {
					if p.GOOS != "windows" && f.mode.Perm() != 0o755 {
						t.Errorf("%s has mode %v, want 0755", name, f.mode.Perm())
					}
					if !bytes.Contains(f.data, []byte(b.Version)) {
						t.Errorf("%s does not carry the version %s", name, b.Version)
					}
				}
			}
			if len(files) != len(want) {
				t.Errorf("%s holds %q, want only %q under %s", b.archiveName(p), names, want, dir)
			}
			if p.GOOS != "windows" {
				return
			}
			// The tray is a GUI program (-H=windowsgui: no console window opens with it); the server is a console
			// one, as stdio clients start it.
			if got := subsystem(t, files[dir+"gemini-search-tray.exe"].data); got != pe.IMAGE_SUBSYSTEM_WINDOWS_GUI {
				t.Errorf("gemini-search-tray.exe: subsystem %d, want the GUI one (%d)", got, pe.IMAGE_SUBSYSTEM_WINDOWS_GUI)
			}
			if got := subsystem(t, files[dir+"gemini-search-mcp.exe"].data); got != pe.IMAGE_SUBSYSTEM_WINDOWS_CUI {
				t.Errorf("gemini-search-mcp.exe: subsystem %d, want the console one (%d)", got, pe.IMAGE_SUBSYSTEM_WINDOWS_CUI)
			}
		})
	}
}

// sealedEnv is the whole environment of a server under test: this one's, with every variable of the server's
// configuration blank (blank is unset), private config, cache and state dirs and HOME, and the Gemini API at a
// closed loopback port, so that nothing of the developer's reaches it and nothing leaves 127.0.0.1; then extra,
// whose names win (a name set twice takes its last value).
func sealedEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	env := os.Environ()
	for _, v := range config.EnvVars() {
		env = append(env, v.Name+"=")
	}
	home := t.TempDir()
	env = append(env,
		"GEMINI_API_KEY=", "GOOGLE_API_KEY=", "GOOGLE_GENAI_USE_VERTEXAI=",
		"GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:1",
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
	)
	return append(env, extra...)
}

func command(t *testing.T, env []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func need(t *testing.T, tool, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s is needed (apt-get install %s; .ci/apt-packages)", tool, pkg)
	}
}

// wantLinuxFiles is what both Linux packages install, with their modes.
var wantLinuxFiles = map[string]os.FileMode{
	"usr/bin/gemini-search-mcp":                                   0o755,
	"usr/bin/gemini-search-tray":                                  0o755,
	"usr/share/applications/gemini-search-tray.desktop":           0o644,
	"usr/share/icons/hicolor/64x64/apps/gemini-search-tray.png":   0o644,
	"usr/share/icons/hicolor/128x128/apps/gemini-search-tray.png": 0o644,
	"usr/share/icons/hicolor/256x256/apps/gemini-search-tray.png": 0o644,
	"usr/share/icons/hicolor/512x512/apps/gemini-search-tray.png": 0o644,
	"usr/share/doc/gemini-search-mcp/README.md":                   0o644,
}

func TestDeb(t *testing.T) {
	need(t, "dpkg-deb", "dpkg")
	b := dist(t)
	for _, a := range b.find("Linux Package", "") {
		if !strings.HasSuffix(a.Name, ".deb") {
			continue
		}
		t.Run(a.GOARCH, func(t *testing.T) {
			t.Parallel()
			deb := filepath.Join(b.root, a.Path)
			out, err := command(t, nil, "dpkg-deb", "--showformat=${Package} ${Version} ${Architecture}", "--show", deb)
			if want := "gemini-search-mcp " + strings.Replace(b.Version, "-", "~", 1) + " " + a.GOARCH; err != nil || out != want {
				t.Errorf("dpkg-deb --show: %q (%v), want %q", out, err, want)
			}
			// Nothing runs as root at install: the control archive holds no maintainer script.
			control := t.TempDir()
			if out, err := command(t, nil, "dpkg-deb", "--control", deb, control); err != nil {
				t.Fatalf("dpkg-deb --control: %v\n%s", err, out)
			}
			entries, err := os.ReadDir(control)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if !slices.Contains([]string{"control", "md5sums", "conffiles"}, e.Name()) {
					t.Errorf("the package holds the maintainer script %s: nothing may run as root at install", e.Name())
				}
			}

			root := t.TempDir()
			if out, err := command(t, nil, "dpkg-deb", "-x", deb, root); err != nil {
				t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
			}
			checkInstalledFiles(t, root)
			if a.GOARCH != runtime.GOARCH || runtime.GOOS != "linux" {
				return
			}
			for _, name := range []string{"gemini-search-mcp", "gemini-search-tray"} {
				out, err := command(t, sealedEnv(t), filepath.Join(root, "usr", "bin", name), "--version")
				if want := name + " " + b.Version + "\n"; err != nil || out != want {
					t.Errorf("%s --version: %q (%v), want %q", name, out, err, want)
				}
			}
			fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
			env := sealedEnv(t, append(fake.Env(), "GEMINI_CLI_PATH="+fake.Path, "GEMINI_BACKEND=cli", "GEMINI_API_KEY=test-key-1234")...)
			out, err = command(t, env, filepath.Join(root, "usr", "bin", "gemini-search-mcp"), "doctor", "--offline")
			if err != nil || !strings.Contains(out, "✓ Backend       Gemini CLI") || !strings.Contains(out, "✓ Gemini CLI") {
				t.Errorf("doctor --offline from the unpacked .deb: %v\n%s", err, out)
			}
			if strings.Contains(out, "test-key-1234") {
				t.Errorf("doctor shows the key:\n%s", out)
			}
			checkTrayPages(t, filepath.Join(root, "usr", "bin", "gemini-search-tray"), b.Version,
				sealedEnv(t, append(fake.Env(), "GEMINI_CLI_PATH="+fake.Path, "GEMINI_BACKEND=cli")...))
		})
	}
}

// checkTrayPages starts the tray without its icon (--headless, a free port) and reads its status page, whose foot
// shows the version, and /healthz, which serves the ping tool's object.
func checkTrayPages(t *testing.T, tray, version string, env []string) {
	t.Helper()
	cmd := exec.Command(tray, "--headless", "--port", "0")
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(testkit.WaitLimit):
			cmd.Process.Kill()
			<-done
			t.Errorf("the tray did not stop within %v of SIGINT", testkit.WaitLimit)
		}
	}()
	status := make(chan string, 1)
	var log testkit.SyncBuffer
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`status="?(http://127\.0\.0\.1:\d+/status\?token=[0-9a-f]+)`)
		for sc.Scan() {
			log.Write([]byte(sc.Text() + "\n"))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				status <- m[1]
			}
		}
	}()
	var page string
	select {
	case page = <-status:
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("the tray logged no status page within %v:\n%s", testkit.WaitLimit, log.String())
	}
	jar, err := cookiejar.New(nil) // the page trades the link's token for a cookie
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	get := func(url string) string {
		t.Helper()
		res, err := browser.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
		}
		return string(body)
	}
	if body := get(page); !strings.Contains(body, "<footer>gemini-search-mcp "+version+"</footer>") {
		t.Errorf("the tray's status page does not end with the version %s:\n%s", version, body)
	}
	base, _, _ := strings.Cut(page, "/status")
	var health struct{ Version string }
	if err := json.Unmarshal([]byte(get(base+"/healthz")), &health); err != nil || health.Version != version {
		t.Errorf("the tray's /healthz: version %q (%v), want %s", health.Version, err, version)
	}
}

// checkInstalledFiles checks what a Linux package put under root: the binaries, the desktop entry and the icon it
// names, the docs.
func checkInstalledFiles(t *testing.T, root string) {
	t.Helper()
	for name, mode := range wantLinuxFiles {
		info, err := os.Stat(filepath.Join(root, name))
		if err != nil {
			t.Errorf("the package does not install /%s: %v", name, err)
		} else if info.Mode().Perm() != mode {
			t.Errorf("/%s has mode %v, want %v", name, info.Mode().Perm(), mode)
		}
	}
	desktop := filepath.Join(root, "usr", "share", "applications", "gemini-search-tray.desktop")
	data, err := os.ReadFile(desktop)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			keys[k] = v
		}
	}
	if keys["Exec"] != "gemini-search-tray" || keys["Type"] != "Application" || keys["Categories"] == "" {
		t.Errorf("desktop entry: Exec=%q Type=%q Categories=%q, want the tray, an Application, categories",
			keys["Exec"], keys["Type"], keys["Categories"])
	}
	for _, size := range []int{64, 128, 256, 512} {
		icon := filepath.Join(root, "usr", "share", "icons", "hicolor", fmt.Sprintf("%dx%d", size, size), "apps", keys["Icon"]+".png")
		f, err := os.Open(icon)
		if err != nil {
			t.Errorf("the desktop entry's Icon=%s: %v", keys["Icon"], err)
			continue
		}
		img, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || img.Width != size || img.Height != size {
			t.Errorf("%s: %dx%d (%v), want a %dx%d PNG", icon, img.Width, img.Height, err, size, size)
		}
	}
	if _, err := exec.LookPath("desktop-file-validate"); err != nil {
		t.Logf("desktop-file-validate not installed (apt-get install desktop-file-utils): the entry is not validated")
		return
	}
	if out, err := command(t, nil, "desktop-file-validate", desktop); err != nil || strings.Contains(out, "error:") {
		t.Errorf("desktop-file-validate: %v\n%s", err, out)
	}
}

func TestRPM(t *testing.T) {
	need(t, "rpm", "rpm")
	b := dist(t)
	for _, a := range b.find("Linux Package", "") {
		if !strings.HasSuffix(a.Name, ".rpm") {
			continue
		}
		t.Run(a.GOARCH, func(t *testing.T) {
			t.Parallel()
			pkg := filepath.Join(b.root, a.Path)
			arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[a.GOARCH]
			// rpm creates its database (~/.rpmdb on Debian) at the first query: each subtest has its own, or the
			// parallel ones race to create the same one.
			db := t.TempDir()
			rpm := func(args ...string) (string, error) {
				return command(t, nil, "rpm", slices.Concat([]string{"--dbpath", db}, args)...)
			}
			out, err := rpm("-qp", "--queryformat", "%{NAME} %{ARCH}", pkg)
			if want := "gemini-search-mcp " + arch; err != nil || out != want {
				t.Errorf("rpm -qp: %q (%v), want %q", out, err, want)
			}
			// Nothing runs as root at install: no scriptlet, no trigger.
			for _, query := range []string{"--scripts", "--triggers", "--filetriggers"} {
				if out, err := rpm("-qp", query, pkg); err != nil || strings.TrimSpace(out) != "" {
					t.Errorf("rpm -qp %s: %v\n%s\nwant nothing: nothing may run as root at install", query, err, out)
				}
			}
			out, err = rpm("-qp", "--queryformat", "[%{FILEMODES:perms} %{FILENAMES}\n]", pkg)
			if err != nil {
				t.Fatalf("rpm -qp: %v\n%s", err, out)
			}
			for name, mode := range wantLinuxFiles {
				if want := mode.String() + " /" + name + "\n"; !strings.Contains(out, want) {
					t.Errorf("the rpm lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// mcpbCLI is the pinned mcpb CLI (packaging/install.sh, which GoReleaser's before hook runs).
func mcpbCLI(t *testing.T, b *build) string {
	t.Helper()
	cli := filepath.Join(b.root, ".cache", "packaging", "node_modules", ".bin", "mcpb")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("the mcpb CLI: %v (packaging/install.sh installs it; make dist runs it)", err)
	}
	return cli
}

func TestBundles(t *testing.T) {
	b := dist(t)
	cli := mcpbCLI(t, b)
	for _, p := range Platforms {
		t.Run(p.String(), func(t *testing.T) {
			t.Parallel()
			files := readArchive(t, b.file(BundleName(b.Version, p)))
			var m manifest
			if err := json.Unmarshal(files["manifest.json"].data, &m); err != nil {
				t.Fatalf("manifest.json: %v", err)
			}
			if m.Version != b.Version || !slices.Equal(m.Compatibility.Platforms, []string{p.MCPB()}) {
				t.Errorf("manifest: version %q for %q, want %s for [%s]", m.Version, m.Compatibility.Platforms, b.Version, p.MCPB())
			}
			server, ok := files[m.Server.EntryPoint]
			if !ok || m.Server.EntryPoint != EntryPoint(p) {
				t.Fatalf("the bundle lacks its entry point %q (want %s)", m.Server.EntryPoint, EntryPoint(p))
			}
			if p.GOOS != "windows" && server.mode.Perm() != 0o755 {
				t.Errorf("%s has mode %v, want 0755", m.Server.EntryPoint, server.mode.Perm())
			}
			if !bytes.Contains(server.data, []byte(b.Version)) {
				t.Errorf("%s does not carry the version %s", m.Server.EntryPoint, b.Version)
			}
			if p.GOOS == "windows" && subsystem(t, server.data) != pe.IMAGE_SUBSYSTEM_WINDOWS_CUI {
				t.Errorf("%s is not a console program: stdio needs one", m.Server.EntryPoint)
			}
			// The official CLI's check, on the manifest as shipped (with the icon it names).
			dir := t.TempDir()
			for _, name := range []string{"manifest.json", m.Icon} {
				if err := os.WriteFile(filepath.Join(dir, name), files[name].data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if out, err := command(t, nil, cli, "validate", filepath.Join(dir, "manifest.json")); err != nil {
				t.Errorf("mcpb validate: %v\n%s", err, out)
			}
		})
	}
}

// mcpConfig is a server's entry as Claude Desktop resolves it from a bundle's manifest.
type mcpConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// install installs the bundle of this system the way Claude Desktop does (packaging/mcpb/install.mjs, with the
// pinned @anthropic-ai/mcpb's own unpack and config code) with the settings of its install dialog, and returns the
// resolved entry and the manifest.
func install(t *testing.T, b *build, userConfig map[string]string) (mcpConfig, manifest) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is needed to install a bundle as Claude Desktop does")
	}
	p := Platform{runtime.GOOS, runtime.GOARCH}
	settings, err := json.Marshal(userConfig)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command("node", filepath.Join("mcpb", "install.mjs"), b.file(BundleName(b.Version, p)), dir, string(settings))
	cmd.Env = append(os.Environ(), "MCPB_MODULES="+filepath.Join(b.root, ".cache", "packaging", "node_modules"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("install.mjs: %v\n%s", err, stderr.String())
	}
	var cfg mcpConfig
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("install.mjs printed %q: %v", out, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, filepath.FromSlash(EntryPoint(p))); cfg.Command != want || len(cfg.Args) != 0 {
		t.Errorf("Claude Desktop would run %q %q, want %s with no arguments", cfg.Command, cfg.Args, want)
	}
	for name, value := range cfg.Env {
		if strings.Contains(value, "${") {
			t.Errorf("Claude Desktop would set %s=%q: a placeholder left unresolved", name, value)
		}
	}
	return cfg, m
}

// start starts the installed server as Claude Desktop does, over stdio, with its entry's environment on top of env.
func start(t *testing.T, cfg mcpConfig, env []string) *client.Client {
	t.Helper()
	for name, value := range cfg.Env {
		env = append(env, name+"="+value)
	}
	c, err := client.NewStdioMCPClientWithOptions(cfg.Command, env, cfg.Args)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(testkit.Text(res)), &body); err != nil || res.IsError {
		t.Fatalf("%s answered %q (error %v, %v)", name, testkit.Text(res), res.IsError, err)
	}
	return body
}

func TestBundleInstalledAsClaudeDesktopDoes(t *testing.T) {
	b := dist(t)
	if !slices.Contains(Platforms, Platform{runtime.GOOS, runtime.GOARCH}) {
		t.Skipf("no bundle for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	t.Run("settings", func(t *testing.T) {
		t.Parallel()
		fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
		cfg, m := install(t, b, map[string]string{
			"gemini_api_key":    "AIza-test-key-1234",
			"firecrawl_api_key": "fc-test-key-5678",
			"backend":           "cli",
			"gemini_cli_path":   fake.Path,
		})
		for name, want := range map[string]string{"GEMINI_API_KEY": "AIza-test-key-1234", "FIRECRAWL_API_KEY": "fc-test-key-5678",
			"GEMINI_BACKEND": "cli", "GEMINI_CLI_PATH": fake.Path} {
			if cfg.Env[name] != want {
				t.Errorf("Claude Desktop would set %s=%q, want %q", name, cfg.Env[name], want)
			}
		}
		c := start(t, cfg, sealedEnv(t, fake.Env()...))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if info := testkit.Initialize(t, ctx, c); info.ServerInfo.Version != b.Version {
			t.Errorf("initialize: server version %q, want %s", info.ServerInfo.Version, b.Version)
		}
		list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		var served, declared []string
		for _, tool := range list.Tools {
			served = append(served, tool.Name)
		}
		for _, tool := range m.Tools {
			declared = append(declared, tool.Name)
		}
		slices.Sort(served)
		slices.Sort(declared)
		if !slices.Equal(served, declared) {
			t.Errorf("the server serves the tools %q, the bundle's manifest declares %q: update packaging/mcpb/manifest.json.tmpl",
				served, declared)
		}
		if ping := callTool(t, c, "ping", nil); ping["version"] != b.Version || ping["backend"] != "cli" {
			t.Errorf("ping: version %v on backend %v, want %s on cli (the install dialog's choice)", ping["version"], ping["backend"], b.Version)
		}
		res := callTool(t, c, "search", map[string]any{"query": "What is new in Go 1.26?"})
		if report, _ := res["report"].(string); res["success"] != true || !strings.HasPrefix(report, "# Fake report") {
			t.Errorf("search: %v", res)
		}
		calls := fake.Calls()
		if len(calls) == 0 {
			t.Fatal("the fake Gemini CLI never ran")
		}
		if got := calls[0].Env["FIRECRAWL_API_KEY"]; got != "fc-test-key-5678" {
			t.Errorf("the CLI got FIRECRAWL_API_KEY=%q, want the install dialog's key", got)
		}
	})
	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		cfg, _ := install(t, b, map[string]string{})
		for name, want := range map[string]string{"GEMINI_API_KEY": "", "FIRECRAWL_API_KEY": "", "GEMINI_BACKEND": "auto", "GEMINI_CLI_PATH": ""} {
			if got, ok := cfg.Env[name]; !ok || got != want {
				t.Errorf("with the install dialog left as it is, Claude Desktop would set %s=%q, want %q", name, got, want)
			}
		}
		// No CLI and no npx on PATH (and so no CLI from the network), no key: the server starts and says what is missing.
		c := start(t, cfg, sealedEnv(t, "PATH="+t.TempDir()))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		testkit.Initialize(t, ctx, c)
		if ping := callTool(t, c, "ping", nil); ping["version"] != b.Version || ping["backend_mode"] != "auto" {
			t.Errorf("ping: version %v in mode %v, want %s in auto", ping["version"], ping["backend_mode"], b.Version)
		}
	})
}

func TestServerJSONFile(t *testing.T) {
	b := dist(t)
	data, err := os.ReadFile(b.file("server.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateServerJSON(data); err != nil {
		t.Fatal(err)
	}
	var entry struct {
		Version  string `json:"version"`
		Packages []struct {
			Identifier string `json:"identifier"`
			Version    string `json:"version"`
			FileSHA256 string `json:"fileSha256"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &entry); err != nil {
		t.Fatal(err)
	}
	if entry.Version != b.Version || len(entry.Packages) != len(Platforms) {
		t.Fatalf("server.json: version %q with %d packages, want %s with %d", entry.Version, len(entry.Packages), b.Version, len(Platforms))
	}
	for i, p := range Platforms {
		pkg := entry.Packages[i]
		name := BundleName(b.Version, p)
		if want := Repository + "/releases/download/" + b.Tag + "/" + name; pkg.Identifier != want || pkg.Version != b.Version {
			t.Errorf("package %d: %s at %s, want %s at %s", i, pkg.Identifier, pkg.Version, want, b.Version)
		}
		if got := sha256File(t, b.file(name)); pkg.FileSHA256 != got {
			t.Errorf("%s: server.json says sha256 %s, the file has %s", name, pkg.FileSHA256, got)
		}
	}
}
