// Command serverjson writes the MCP Registry entry of a release, DIST/server.json: the version and tag GoReleaser
// built (DIST/metadata.json), and the download URL and SHA-256 of the Claude Desktop bundle of every platform in
// DIST, checked against the registry's schema. make dist runs it after GoReleaser.
//
//	go run ./packaging/cmd/serverjson -dist dist
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gemini-search-mcp/gemini-search-mcp/packaging"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "serverjson:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("serverjson", flag.ContinueOnError)
	dist := fs.String("dist", "dist", "GoReleaser's output folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(*dist, "metadata.json"))
	if err != nil {
		return fmt.Errorf("%w (run GoReleaser first: make dist)", err)
	}
	var meta struct{ Version, Tag string }
	if err := json.Unmarshal(data, &meta); err != nil {
		return fmt.Errorf("metadata.json: %w", err)
	}
	var bundles []packaging.Bundle
	for _, p := range packaging.Platforms {
		data, err := os.ReadFile(filepath.Join(*dist, packaging.BundleName(meta.Version, p)))
		if err != nil {
			return fmt.Errorf("the bundle for %s: %w", p, err)
		}
		sum := sha256.Sum256(data)
		bundles = append(bundles, packaging.Bundle{Platform: p, SHA256: hex.EncodeToString(sum[:])})
	}
	out, err := packaging.ServerJSON(meta.Version, meta.Tag, bundles)
	if err != nil {
		return err
	}
	path := filepath.Join(*dist, "server.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return err
	}
	fmt.Println("wrote", path, "for", meta.Version)
	return nil
}
