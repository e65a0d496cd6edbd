package config

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/atomicfile"
)

// Assignment sets one variable in a .env file; an empty Value removes it (an empty value counts as unset).
type Assignment struct {
	Name, Value string
}

// UpdateDotenv returns src with the assignments applied, keeping every other line as written: comments, blank
// lines, unknown variables and even lines it cannot parse. A variable already set to the same value keeps its
// line (and its quoting); a changed one is rewritten in place, keeping an "export " prefix; a new one is appended
// in the order given. Duplicate lines of a changed variable (where the last one won) are dropped, so the file
// keeps one. The result uses src's line ending, and keeps its byte order mark.
func UpdateDotenv(src []byte, assignments []Assignment) []byte {
	eol := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		eol = "\r\n"
	}
	// A byte order mark (Windows editors write one) is not part of the first line: the parser skips it too.
	text, bom := string(src), ""
	if rest, found := strings.CutPrefix(text, "\uFEFF"); found {
		text, bom = rest, "\uFEFF"
	}
	lines := splitLines(text)
	where := map[string][]int{} // variable name → indexes of its lines
	for i, line := range lines {
		if key, _, ok, err := parseDotenvLine(line); err == nil && ok {
			where[key] = append(where[key], i)
		}
	}
	drop := map[int]bool{}
	var appended []string
	for _, a := range assignments {
		at := where[a.Name]
		if a.Value == "" {
			for _, i := range at {
				drop[i] = true
			}
			continue
		}
		if len(at) == 0 {
			appended = append(appended, a.Name+"="+quoteDotenv(a.Value))
			continue
		}
		for _, i := range at[:len(at)-1] {
			drop[i] = true
		}
		last := at[len(at)-1]
		if _, old, _, _ := parseDotenvLine(lines[last]); old == a.Value {
			continue
		}
		prefix := ""
		if _, exported := cutExport(strings.TrimSpace(lines[last])); exported {
			prefix = "export "
		}
		lines[last] = prefix + a.Name + "=" + quoteDotenv(a.Value) + lineEnding(lines[last])
	}

	var b strings.Builder
	for i, line := range lines {
		if !drop[i] {
			b.WriteString(line)
		}
	}
	if len(appended) > 0 {
		if out := b.String(); out != "" && !strings.HasSuffix(out, "\n") {
			b.WriteString(eol)
		}
		for _, line := range appended {
			b.WriteString(line + eol)
		}
	}
	return []byte(bom + b.String())
}

// splitLines splits s after each "\n", keeping the line endings.
func splitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// lineEnding returns line's own ending: "\r\n", "\n", or "" for a last line without one.
func lineEnding(line string) string {
	switch {
	case strings.HasSuffix(line, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(line, "\n"):
		return "\n"
	}
	return ""
}

// quoteDotenv writes value so that parseDotenv reads it back unchanged: bare when that is safe, 'single quoted'
// when it has no ' or line break, else "double quoted" with escapes. A bare value must not start or end with a
// blank of any kind (a form feed, a no-break space): the parser trims those.
func quoteDotenv(value string) string {
	if value != "" && strings.TrimSpace(value) == value && !strings.ContainsAny(value, " \t\r\n#'\"\\=") {
		return value
	}
	if !strings.ContainsAny(value, "'\r\n") {
		return "'" + value + "'"
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return `"` + r.Replace(value) + `"`
}

// WriteDotenv replaces the file at path with data atomically: a temporary file in the same directory, synced,
// mode 0600, renamed over path. Readers see the old or the new file, never half of one.
func WriteDotenv(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
