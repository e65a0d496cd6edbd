// Command mcpb packs the Claude Desktop bundle (.mcpb) of one headless build: GoReleaser runs it after building
// gemini-search-mcp for each platform (.goreleaser.yaml). It lays the bundle out (packaging.Stage), checks the
// manifest with the official MCP Bundle CLI (mcpb validate) and packs it (mcpb pack) into OUT/<name>.mcpb.
//
//	go run ./packaging/cmd/mcpb -binary dist/.../gemini-search-mcp -os linux -arch amd64 -version 1.2.3 -out dist
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gemini-search-mcp/gemini-search-mcp/packaging"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mcpb:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("mcpb", flag.ContinueOnError)
	binary := fs.String("binary", "", "the built gemini-search-mcp")
	goos := fs.String("os", "", "its GOOS")
	goarch := fs.String("arch", "", "its GOARCH")
	version := fs.String("version", "", "the release's version")
	out := fs.String("out", "dist", "where the .mcpb is written")
	license := fs.String("license", "LICENSE", "the license file the bundle carries")
	cli := fs.String("cli", filepath.Join(".cache", "packaging", "node_modules", ".bin", "mcpb"),
		"the mcpb CLI (packaging/install.sh installs the pinned one there)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *binary == "" || *goos == "" || *goarch == "" || *version == "" {
		return fmt.Errorf("-binary, -os, -arch and -version are required")
	}
	p := packaging.Platform{GOOS: *goos, GOARCH: *goarch}
	stage, err := os.MkdirTemp("", "mcpb-"+p.String()+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	if err := packaging.Stage(stage, *version, p, *binary, *license); err != nil {
		return fmt.Errorf("lay out the bundle for %s: %w", p, err)
	}
	bundle, err := filepath.Abs(filepath.Join(*out, packaging.BundleName(*version, p)))
	if err != nil {
		return err
	}
	for _, argv := range [][]string{{"validate", filepath.Join(stage, "manifest.json")}, {"pack", stage, bundle}} {
		cmd := exec.Command(*cli, argv...)
		if output, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("mcpb %s for %s: %w\n%s", argv[0], p, err, output)
		}
	}
	fmt.Println("packed", bundle)
	return nil
}
