package packaging

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
)

// manifest is the part of a bundle's manifest.json the tests read.
type manifest struct {
	ManifestVersion string `json:"manifest_version"`
	Name            string `json:"name"`
	Version         string `json:"version"`
	Icon            string `json:"icon"`
	Server          struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcp_config"`
	} `json:"server"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Compatibility struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
	UserConfig map[string]struct {
		Type      string `json:"type"`
		Title     string `json:"title"`
		Sensitive bool   `json:"sensitive"`
		Required  bool   `json:"required"`
		Default   *any   `json:"default"`
	} `json:"user_config"`
}

func TestManifest(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, v := range config.EnvVars() {
		known[v.Name] = true
	}
	userConfigRef := regexp.MustCompile(`^\$\{user_config\.([a-z_]+)\}$`)
	for _, p := range Platforms {
		t.Run(p.String(), func(t *testing.T) {
			t.Parallel()
			data, err := Manifest("1.2.3", p)
			if err != nil {
				t.Fatal(err)
			}
			var m manifest
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			if m.ManifestVersion != "0.3" || m.Name != Server || m.Version != "1.2.3" || m.Server.Type != "binary" {
				t.Errorf("manifest_version %q, name %q, version %q, server.type %q; want 0.3, %s, 1.2.3, binary",
					m.ManifestVersion, m.Name, m.Version, m.Server.Type, Server)
			}
			want := "server/gemini-search-mcp" + p.Exe()
			if m.Server.EntryPoint != want || m.Server.MCPConfig.Command != "${__dirname}/"+want || len(m.Server.MCPConfig.Args) != 0 {
				t.Errorf("entry_point %q, command %q, args %q; want %s run from the bundle with no arguments (stdio)",
					m.Server.EntryPoint, m.Server.MCPConfig.Command, m.Server.MCPConfig.Args, want)
			}
			if !slices.Equal(m.Compatibility.Platforms, []string{p.MCPB()}) {
				t.Errorf("platforms %q, want [%s]", m.Compatibility.Platforms, p.MCPB())
			}
			used := map[string]bool{}
			for name, value := range m.Server.MCPConfig.Env {
				if !known[name] {
					t.Errorf("env %s is no variable the server reads (internal/config)", name)
				}
				ref := userConfigRef.FindStringSubmatch(value)
				if ref == nil {
					t.Errorf("env %s=%q, want a ${user_config.…} value", name, value)
					continue
				}
				if _, ok := m.UserConfig[ref[1]]; !ok {
					t.Errorf("env %s names user_config.%s, which the manifest lacks", name, ref[1])
				}
				used[ref[1]] = true
			}
			for key, opt := range m.UserConfig {
				if !used[key] {
					t.Errorf("user_config.%s reaches no variable", key)
				}
				// Claude Desktop substitutes ${user_config.KEY} only when the field has a value: an optional field
				// left empty without a default would reach the server as the literal text.
				if !opt.Required && opt.Default == nil {
					t.Errorf("user_config.%s is optional without a default", key)
				}
			}
			for key, env := range map[string]string{"gemini_api_key": "GEMINI_API_KEY", "firecrawl_api_key": "FIRECRAWL_API_KEY"} {
				if !m.UserConfig[key].Sensitive || m.Server.MCPConfig.Env[env] != "${user_config."+key+"}" {
					t.Errorf("user_config.%s: sensitive %v, mapped to %s as %q; want a sensitive field mapped to %s",
						key, m.UserConfig[key].Sensitive, env, m.Server.MCPConfig.Env[env], env)
				}
			}
			if d := m.UserConfig["backend"].Default; d == nil || *d != backend.Auto || m.Server.MCPConfig.Env["GEMINI_BACKEND"] != "${user_config.backend}" {
				t.Errorf("user_config.backend defaults to %v, GEMINI_BACKEND=%q; want auto, from the field", d, m.Server.MCPConfig.Env["GEMINI_BACKEND"])
			}
			if m.Icon != "icon.png" {
				t.Errorf("icon %q, want icon.png", m.Icon)
			}
		})
	}
	if _, err := Manifest("", Platforms[0]); err == nil {
		t.Error("a manifest without a version rendered")
	}
}

func TestStage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	binary := filepath.Join(dir, "built.exe")
	if err := os.WriteFile(binary, []byte("MZ"), 0o600); err != nil {
		t.Fatal(err)
	}
	stage := filepath.Join(dir, "stage")
	p := Platform{"windows", "arm64"}
	if err := Stage(stage, "1.2.3", p, binary, filepath.Join("..", "LICENSE")); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"manifest.json": 0o644, "icon.png": 0o644, "LICENSE": 0o644,
		"server/gemini-search-mcp.exe": 0o755} {
		info, err := os.Stat(filepath.Join(stage, name))
		if err != nil {
			t.Error(err)
		} else if info.Mode().Perm() != mode {
			t.Errorf("%s has mode %v, want %v", name, info.Mode().Perm(), mode)
		}
	}
}

func TestServerJSON(t *testing.T) {
	t.Parallel()
	sha := strings.Repeat("ab", 32)
	var bundles []Bundle
	for _, p := range Platforms {
		bundles = append(bundles, Bundle{Platform: p, SHA256: sha})
	}
	out, err := ServerJSON("1.2.3", "v1.2.3", bundles)
	if err != nil {
		t.Fatal(err)
	}
	var entry struct {
		Version  string `json:"version"`
		Packages []struct {
			RegistryType string `json:"registryType"`
			Identifier   string `json:"identifier"`
			Version      string `json:"version"`
			FileSHA256   string `json:"fileSha256"`
			Transport    struct {
				Type string `json:"type"`
			} `json:"transport"`
			Env []struct {
				Name     string `json:"name"`
				IsSecret bool   `json:"isSecret"`
			} `json:"environmentVariables"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(out, &entry); err != nil {
		t.Fatal(err)
	}
	if entry.Version != "1.2.3" || len(entry.Packages) != len(Platforms) {
		t.Fatalf("version %q with %d packages, want 1.2.3 with %d", entry.Version, len(entry.Packages), len(Platforms))
	}
	m, err := Manifest("1.2.3", Platforms[0])
	if err != nil {
		t.Fatal(err)
	}
	var bundleManifest manifest
	if err := json.Unmarshal(m, &bundleManifest); err != nil {
		t.Fatal(err)
	}
	for i, pkg := range entry.Packages {
		url := Repository + "/releases/download/v1.2.3/gemini-search-mcp_1.2.3_" + Platforms[i].String() + ".mcpb"
		if pkg.RegistryType != "mcpb" || pkg.Identifier != url || pkg.Version != "1.2.3" || pkg.FileSHA256 != sha || pkg.Transport.Type != "stdio" {
			t.Errorf("package %d: %+v, want the mcpb at %s over stdio", i, pkg, url)
		}
		for _, v := range pkg.Env { // the registry's clients set what Claude Desktop's bundle asks for
			if _, ok := bundleManifest.Server.MCPConfig.Env[v.Name]; !ok {
				t.Errorf("package %d sets %s, which the bundle's manifest does not", i, v.Name)
			}
			if secret := v.Name != "GEMINI_BACKEND"; v.IsSecret != secret {
				t.Errorf("package %d: %s isSecret %v, want %v", i, v.Name, v.IsSecret, secret)
			}
		}
	}

	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		bad := slices.Clone(bundles)
		bad[0].SHA256 = "not a hash"
		if _, err := ServerJSON("1.2.3", "v1.2.3", bad); err == nil || !strings.Contains(err.Error(), "fileSha256") {
			t.Errorf("a bad fileSha256: %v, want the schema's error naming it", err)
		}
		if _, err := ServerJSON("", "v1.2.3", bundles); err == nil {
			t.Error("server.json without a version rendered")
		}
		long := strings.Replace(string(out), `"description": "Deep web research`, `"description": "`+strings.Repeat("x", 100), 1)
		if err := ValidateServerJSON([]byte(long)); err == nil || !strings.Contains(err.Error(), "description") {
			t.Errorf("a description over 100 characters: %v, want the schema's error", err)
		}
		other := strings.Replace(string(out), "2025-12-11", "2025-09-29", 1)
		if err := ValidateServerJSON([]byte(other)); err == nil {
			t.Error("server.json naming another schema passed")
		}
	})
}
