// Package checklist holds the lines of the setup checklist: what doctor's checks find, and what the menu and the
// pages show of them. It imports nothing of the backends, so that the views can show checks without importing the
// probes that make them.
package checklist

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
