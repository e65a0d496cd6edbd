// Package buildinfo tells which version a binary is.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version is stamped, the version a build stamped with -ldflags "-X main.version=..." (make, GoReleaser), unless
// nothing was stamped ("dev"): then the version of the module the binary was built from, which `go install
// …@v1.2.3` records, else "dev".
func Version(stamped string) string {
	if stamped != "dev" {
		return stamped
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		return fromModule(info.Main.Version, stamped)
	}
	return stamped
}

// fromModule is the version a module version (v1.2.3, or "(devel)" for a build in its own tree) gives.
func fromModule(module, fallback string) string {
	if module == "" || module == "(devel)" {
		return fallback
	}
	return strings.TrimPrefix(module, "v")
}
