package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// parseDotenv reads a .env file: KEY=VALUE lines, blank lines, # comments and
// an optional "export " prefix. Values are trimmed; they may be
// 'single quoted' (taken literally) or "double quoted" (with \n, \t, \r, \"
// and \\ escapes; other backslashes are kept). An unquoted value ends at a
// " #" comment. A later line wins over an earlier one for the same key.
//
// Quoted values keep their inner blanks (Load trims every value anyway).
// A malformed line is an error naming its line number. The error never quotes
// the line, which may hold a secret.
func parseDotenv(r io.Reader) (map[string]string, error) {
	vars := make(map[string]string)
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF") // byte order mark from Windows editors
		}
		if key, value, ok, perr := parseDotenvLine(line); perr != nil {
			return nil, fmt.Errorf("line %d: %w", n, perr)
		} else if ok {
			vars[key] = value
		}
		if err != nil { // io.EOF
			return vars, nil
		}
	}
}

// parseDotenvLine parses one line; ok is false for blank and comment lines.
func parseDotenvLine(line string) (key, value string, ok bool, err error) {
	line = strings.TrimSpace(line) // also drops "\r\n"
	if line == "" || line[0] == '#' {
		return "", "", false, nil
	}
	line, _ = cutExport(line)
	key, raw, found := strings.Cut(line, "=")
	if !found {
		return "", "", false, errors.New("expected KEY=VALUE")
	}
	key = strings.TrimSpace(key)
	if !validName(key) {
		return "", "", false, errors.New("variable name must be letters, digits and _, not starting with a digit")
	}
	value, err = parseDotenvValue(raw)
	if err != nil {
		return "", "", false, fmt.Errorf("%s: %w", key, err)
	}
	return key, value, true, nil
}

// cutExport removes the "export " prefix of a trimmed line, and reports whether it had one. A blank must follow
// the word: "exportX=1" sets exportX.
func cutExport(line string) (string, bool) {
	rest, found := strings.CutPrefix(line, "export")
	if !found || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return line, false
	}
	return strings.TrimSpace(rest), true
}

func parseDotenvValue(raw string) (string, error) {
	v := strings.TrimLeft(raw, " \t")
	if v == "" {
		return "", nil
	}
	var value, rest string
	switch v[0] {
	case '\'':
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", errors.New("missing closing ' quote")
		}
		value, rest = v[1:1+end], v[2+end:]
	case '"':
		var b strings.Builder
		i := 1
		for ; i < len(v) && v[i] != '"'; i++ {
			if v[i] != '\\' || i+1 == len(v) {
				b.WriteByte(v[i])
				continue
			}
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(v[i])
			default: // keep C:\Users as written
				b.WriteByte('\\')
				b.WriteByte(v[i])
			}
		}
		if i == len(v) {
			return "", errors.New(`missing closing " quote`)
		}
		value, rest = b.String(), v[i+1:]
	default:
		// An unquoted value ends at a # that follows a blank: "a#b" keeps its #.
		for i := 1; i < len(raw); i++ {
			if raw[i] == '#' && (raw[i-1] == ' ' || raw[i-1] == '\t') {
				raw = raw[:i]
				break
			}
		}
		return strings.TrimSpace(raw), nil
	}
	if rest = strings.TrimSpace(rest); rest != "" && rest[0] != '#' {
		return "", errors.New("unexpected text after the closing quote")
	}
	return value, nil
}

// validName reports whether s is a usable environment variable name.
func validName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
