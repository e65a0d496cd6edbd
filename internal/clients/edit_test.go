package clients

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// vsCodeFile is a user mcp.json as VS Code lets people write it: a byte order mark, comments, trailing commas, tabs.
const vsCodeFile = "\ufeff// My MCP servers\n{\n\t// Local ones\n\t\"servers\": {\n\t\t\"memory\": {\n\t\t\t\"command\": \"npx\",\n" +
	"\t\t\t\"args\": [\"-y\", \"@modelcontextprotocol/server-memory\",], // pinned later\n\t\t},\n" +
	"\t\t/* a remote one */\n\t\t\"remote\": {\"type\": \"http\", \"url\": \"https://example.com/mcp\"},\n\t},\n\t\"inputs\": [],\n}\n"

// TestConnectVSCodeKeepsEveryOtherByte: connect adds the entry after the last server, in the file's indentation
// and comma style, and no byte outside it changes; disconnect gives back the file as it was.
func TestConnectVSCodeKeepsEveryOtherByte(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c := All(Platform{GOOS: "linux", Home: home, XDGConfigHome: filepath.Join(home, ".config")}, server)[2]
	if c.Name != "VS Code" {
		t.Fatalf("client %s, want VS Code", c.Name)
	}
	writeFile(t, c.Path, vsCodeFile, 0o640)
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

	backup, err := c.Connect(now)
	if err != nil {
		t.Fatal(err)
	}
	after := readFile(t, c.Path)
	const entry = "\n\t\t\"gemini-search\": {\n\t\t\t\"type\": \"http\",\n\t\t\t\"url\": \"http://127.0.0.1:3000/mcp\"\n\t\t},"
	at := strings.Index(vsCodeFile, "/mcp\"},") + len("/mcp\"},") // after the last server and its comma
	if want := vsCodeFile[:at] + entry + vsCodeFile[at:]; after != want {
		t.Errorf("after connect:\n%s\nwant only the entry inserted:\n%s", after, want)
	}
	prefix, suffix := commonPrefix(vsCodeFile, after), commonSuffix(vsCodeFile, after)
	if prefix+suffix < len(vsCodeFile) {
		t.Errorf("bytes outside the entry changed: %d kept in front, %d behind, of %d", prefix, suffix, len(vsCodeFile))
	}
	if st := c.Status(); st.State != Connected {
		t.Errorf("status %s, want connected", st)
	}
	if got := readFile(t, backup); got != vsCodeFile {
		t.Errorf("backup holds %q, want the original", got)
	}
	if fi, _ := os.Stat(c.Path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's own 0640", fi.Mode().Perm())
	}

	if _, err := c.Disconnect(now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, c.Path); got != vsCodeFile {
		t.Errorf("after disconnect:\n%s\nwant the original back:\n%s", got, vsCodeFile)
	}
}

// TestBackupsInOneSecond: each change keeps its own backup, even within one second; the first holds the original.
func TestBackupsInOneSecond(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := Platform{GOOS: "linux", Home: home}
	c := All(p, server)[0]
	const original = `{"mcpServers": {"other": {"url": "http://x"}}}`
	writeFile(t, c.Path, original, 0o600)
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	moved := server
	moved.URL = "http://127.0.0.1:3100/mcp"

	first, err := c.Connect(now)
	if err != nil {
		t.Fatal(err)
	}
	connected := readFile(t, c.Path)
	second, err := All(p, moved)[0].Connect(now.Add(500 * time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	third, err := c.Disconnect(now)
	if err != nil {
		t.Fatal(err)
	}
	stamp := c.Path + ".20261124-090000"
	for _, b := range []struct{ got, want, holds string }{
		{first, stamp + ".bak", original},
		{second, stamp + ".2.bak", connected},
		{third, stamp + ".3.bak", strings.Replace(connected, ":3000/", ":3100/", 1)},
	} {
		if b.got != b.want {
			t.Errorf("backup %s, want %s", b.got, b.want)
			continue
		}
		if got := readFile(t, b.got); got != b.holds {
			t.Errorf("%s holds %q, want %q", filepath.Base(b.got), got, b.holds)
		}
	}
}

// TestSymlinkFollowed: a client's file that is a link (a dotfiles manager's) has its target written and stays a
// link, also when the target is missing, and its folder too.
func TestSymlinkFollowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		target   string // relative to the dotfiles folder
		relative bool   // the link is relative
		existing string // the target's contents; "" for none
	}{
		{name: "link to a file", target: "cursor/mcp.json", existing: `{"mcpServers": {"other": {"url": "http://x"}}}`},
		{name: "relative link", target: "cursor/mcp.json", relative: true, existing: "{}"},
		{name: "dangling link", target: "cursor/mcp.json"},
		{name: "dangling link, folder missing", target: "not/yet/mcp.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			dotfiles := filepath.Join(home, "dotfiles")
			target := filepath.Join(dotfiles, tt.target)
			if err := os.MkdirAll(filepath.Join(dotfiles, "cursor"), 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.existing != "" {
				writeFile(t, target, tt.existing, 0o644)
			}
			c := All(Platform{GOOS: "linux", Home: home}, server)[0]
			if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
				t.Fatal(err)
			}
			link := target
			if tt.relative {
				link = filepath.Join("..", "dotfiles", tt.target)
			}
			if err := os.Symlink(link, c.Path); err != nil {
				t.Fatal(err)
			}
			backup, err := c.Connect(time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if got, err := os.Readlink(c.Path); err != nil || got != link {
				t.Fatalf("the link now reads %q (%v), want it kept as %q", got, err, link)
			}
			data := readFile(t, target)
			if !strings.Contains(data, `"gemini-search"`) || c.Status().State != Connected {
				t.Errorf("the target holds %q, status %s", data, c.Status())
			}
			if fi, _ := os.Stat(target); tt.existing == "" && fi.Mode().Perm() != 0o600 {
				t.Errorf("new target mode %v, want 0600", fi.Mode().Perm())
			}
			if (backup != "") != (tt.existing != "") {
				t.Errorf("backup %q for a target that existed: %v", backup, tt.existing != "")
			}
			if backup != "" && readFile(t, backup) != tt.existing {
				t.Errorf("backup holds %q, want %q", readFile(t, backup), tt.existing)
			}
		})
	}
}

// TestStatusOfAFileThatCannotBeOpened: the list says why, with the path as people know it.
func TestStatusOfAFileThatCannotBeOpened(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c := All(Platform{GOOS: "linux", Home: home}, server)[0]
	if err := os.MkdirAll(c.Path, 0o700); err != nil { // a folder where the file should be
		t.Fatal(err)
	}
	if got, want := c.Status().String(), "cannot read ~/.cursor/mcp.json: is a directory"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := c.Connect(time.Now()); err == nil || err.Error() != "cannot read ~/.cursor/mcp.json: is a directory" {
		t.Errorf("connect: %v", err)
	}
}

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // whatever the umask
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	return commonPrefix(string(reverse([]byte(a))), string(reverse([]byte(b))))
}

func reverse(b []byte) []byte {
	r := bytes.Clone(b)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return r
}
