package gemini

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// maxDetail bounds Error.Detail.
const maxDetail = 2048

// noisePrefixes start stderr lines that say nothing about a failure: what the CLI prints on every run, Node stack
// frames (with paths inside the CLI's bundle), and the CLI's pointer to an error report in the run's private temp
// folder, which is deleted with the run.
var noisePrefixes = []string{
	"Warning: 256-color",
	"Ripgrep is not available",
	"[STARTUP]",
	"Loaded cached credentials",
	"YOLO mode",
	"at ",
	"Full report available at",
}

// relevantLines returns stderr's lines without blank lines and the CLI's
// routine noise.
func relevantLines(stderr string) []string {
	var lines []string
	for line := range strings.Lines(stderr) {
		line = strings.TrimRight(line, " \t\r\n")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || slices.ContainsFunc(noisePrefixes, func(p string) bool { return strings.HasPrefix(trimmed, p) }) {
			continue
		}
		lines = append(lines, line)
	}
	return lines
}

// detail joins the last lines that fit in maxDetail bytes, dropping repeats.
// A single line longer than that keeps its start.
func detail(lines []string) string {
	var kept []string
	size := 0
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		if slices.Contains(kept, line) {
			continue
		}
		if size+len(line)+1 > maxDetail {
			if len(kept) == 0 {
				kept = append(kept, truncateString(line, maxDetail-len("…"))+"…")
			}
			break
		}
		kept = append(kept, line)
		size += len(line) + 1
	}
	slices.Reverse(kept)
	return strings.Join(kept, "\n")
}

// truncateString cuts s to at most n bytes without splitting a character.
func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
