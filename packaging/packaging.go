// Package packaging renders what a release ships beside the binaries, which GoReleaser builds and packs
// (.goreleaser.yaml): the Claude Desktop bundle's manifest, one per platform, and the MCP Registry's server.json,
// which it checks against the registry's published schema (registry/server.schema.json, vendored).
//
// make dist runs it through packaging/cmd/mcpb (a bundle per headless build) and packaging/cmd/serverjson, then
// checks what dist/ holds with the tests behind the dist build tag (dist_test.go).
package packaging

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Repository is where releases are published; the registry entry points at their assets.
const Repository = "https://github.com/gemini-search-mcp/gemini-search-mcp"

// Server is the headless binary's name, the one the bundles run.
const Server = "gemini-search-mcp"

//go:embed mcpb/manifest.json.tmpl registry/server.json.tmpl registry/server.schema.json icons/512.png
var files embed.FS

// Icon is the app icon, 512×512, as the bundles carry it.
func Icon() []byte {
	data, err := files.ReadFile("icons/512.png")
	if err != nil {
		panic(err) // embedded
	}
	return data
}

// Platform is a system a release builds the headless server for.
type Platform struct{ GOOS, GOARCH string }

// Platforms are the systems a release ships the headless server, its archive and its bundle for.
var Platforms = []Platform{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

func (p Platform) String() string { return p.GOOS + "_" + p.GOARCH }

// Exe is the executables' suffix on p.
func (p Platform) Exe() string {
	if p.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// MCPB is p's name in a bundle's compatibility.platforms: Node's process.platform.
func (p Platform) MCPB() string {
	if p.GOOS == "windows" {
		return "win32"
	}
	return p.GOOS
}

// BundleName is the file name of the Claude Desktop bundle of version for p.
func BundleName(version string, p Platform) string {
	return fmt.Sprintf("%s_%s_%s.mcpb", Server, version, p)
}

// EntryPoint is where a bundle holds the server binary, relative to its root.
func EntryPoint(p Platform) string { return "server/" + Server + p.Exe() }

var templates = template.Must(template.New("").Funcs(template.FuncMap{"json": jsonString}).
	ParseFS(files, "mcpb/manifest.json.tmpl", "registry/server.json.tmpl"))

func jsonString(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

// Manifest renders the manifest.json of the bundle of version for p.
func Manifest(version string, p Platform) ([]byte, error) {
	if version == "" {
		return nil, fmt.Errorf("manifest: no version")
	}
	return render("manifest.json.tmpl", map[string]string{
		"Version": version, "EntryPoint": EntryPoint(p), "Platform": p.MCPB(),
	})
}

// Bundle is a built bundle, as the registry entry lists it.
type Bundle struct {
	Platform Platform
	SHA256   string // of the .mcpb file, hex
}

// ServerJSON renders the registry entry of version, released under tag (the bundles' download URLs), with its
// bundles, and checks it against the registry's schema.
func ServerJSON(version, tag string, bundles []Bundle) ([]byte, error) {
	if version == "" || tag == "" || len(bundles) == 0 {
		return nil, fmt.Errorf("server.json: need a version (%q), a tag (%q) and bundles (%d)", version, tag, len(bundles))
	}
	type entry struct{ URL, SHA256 string }
	var entries []entry
	for _, b := range bundles {
		entries = append(entries, entry{
			URL:    fmt.Sprintf("%s/releases/download/%s/%s", Repository, tag, BundleName(version, b.Platform)),
			SHA256: b.SHA256,
		})
	}
	out, err := render("server.json.tmpl", map[string]any{"Version": version, "Bundles": entries})
	if err != nil {
		return nil, err
	}
	if err := ValidateServerJSON(out); err != nil {
		return nil, err
	}
	return out, nil
}

func render(name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("render %s: %w", name, err)
	}
	var check any
	if err := json.Unmarshal(buf.Bytes(), &check); err != nil {
		return nil, fmt.Errorf("render %s: not JSON: %w", name, err)
	}
	return buf.Bytes(), nil
}

// SchemaURL is the $id of the vendored registry schema, which a server.json names as its $schema.
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// ValidateServerJSON checks data against the registry's schema (registry/server.schema.json), offline, and that it
// names that schema.
func ValidateServerJSON(data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("server.json: %w", err)
	}
	if m, _ := doc.(map[string]any); m["$schema"] != SchemaURL {
		return fmt.Errorf("server.json: $schema is %v, want %s (the vendored schema)", m["$schema"], SchemaURL)
	}
	raw, err := files.ReadFile("registry/server.schema.json")
	if err != nil {
		return err
	}
	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("registry schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SchemaURL, schemaDoc); err != nil {
		return fmt.Errorf("registry schema: %w", err)
	}
	schema, err := c.Compile(SchemaURL)
	if err != nil {
		return fmt.Errorf("registry schema: %w", err)
	}
	if err := schema.Validate(doc); err != nil {
		return fmt.Errorf("server.json does not fit the registry's schema: %s", strings.TrimSpace(fmt.Sprintf("%v", err)))
	}
	return nil
}
