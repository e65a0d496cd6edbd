// Package checklist holds the lines of the setup checklist: what doctor's checks find, and what the menu and the
// pages show of them. It imports nothing of the backends, so that the views can show checks without importing the
// probes that make them.
package checklist

import (
	"strings"
	"unicode"
)

// Check is one line of the checklist. A failed check makes doctor exit non-zero; a hint does not.
type Check struct {
	Name   string
	OK     bool
	Hint   bool   // informational: shown with "!" instead of "✗" and never fails the run
	Detail string // one line; doctor's own checks may add more (what a backend said, the fix)
}

// Broken reports whether c failed and is not a mere hint: searches will fail until it is fixed.
func (c Check) Broken() bool { return !c.OK && !c.Hint }

// Mark is how c is marked wherever the checklist is shown: ✓ passed, ! a hint, ✗ broken.
func (c Check) Mark() string {
	switch {
	case c.OK:
		return "✓"
	case c.Hint:
		return "!"
	}
	return "✗"
}

// Problems are the checks that did not pass, hints included.
func Problems(checks []Check) []Check {
	var problems []Check
	for _, c := range checks {
		if !c.OK {
			problems = append(problems, c)
		}
	}
	return problems
}

// Anchor is the id of c's line on the setup page, which the menu's line of c opens: "check-gemini-cli".
func (c Check) Anchor() string {
	words := strings.FieldsFunc(strings.ToLower(c.Name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return "check-" + strings.Join(words, "-")
}

// CannotServe reports whether the check of the backend in force (the Gemini API when api, else the Gemini CLI, as
// doctor names their checks) is broken among checks: the next search cannot be served, and the status lines say so
// instead of naming that backend.
func CannotServe(checks []Check, api bool) bool {
	name := "Gemini CLI"
	if api {
		name = "Gemini API"
	}
	for _, c := range checks {
		if c.Name == name && c.Broken() {
			return true
		}
	}
	return false
}
