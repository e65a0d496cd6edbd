// Package templates embeds the files the server renders at run time, so the
// binary carries them. See internal/workspace for settings.json.tmpl.
package templates

import "embed"

// FS holds every *.tmpl file of this directory.
//
//go:embed *.tmpl
var FS embed.FS
