package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jsonedit"
)

// tomlDoc is a TOML file (Codex's config.toml) whose entry at a path of two names, [servers.name], is written as
// a table of its own: Set replaces that table's lines (and its subtables') or appends the table at the end, Delete
// removes them, and every other line, comments included, stays as it was. go-toml reads the file and finds where
// each table starts; the text around them is never re-encoded.
type tomlDoc struct {
	src []byte
}

func parseTOML(data []byte) (*tomlDoc, error) {
	d := &tomlDoc{src: bytes.Clone(data)}
	if _, err := d.values(); err != nil {
		return nil, err
	}
	return d, nil
}

// values is the file decoded: its tables as maps.
func (d *tomlDoc) values() (map[string]any, error) {
	v := map[string]any{}
	if err := toml.Unmarshal(d.src, &v); err != nil {
		var decodeErr *toml.DecodeError
		if errors.As(err, &decodeErr) {
			row, _ := decodeErr.Position()
			return nil, &ShapeError{Line: row, Msg: decodeErr.Error()}
		}
		return nil, &ShapeError{Msg: err.Error()}
	}
	return v, nil
}

func (d *tomlDoc) Bytes() []byte { return bytes.Clone(d.src) }

func (d *tomlDoc) Get(path ...string) (json.RawMessage, bool, error) {
	if len(path) != 2 {
		return nil, false, fmt.Errorf("a TOML entry is at a path of two names, not %q", path)
	}
	v, err := d.values()
	if err != nil {
		return nil, false, err
	}
	servers, found := v[path[0]]
	if !found {
		return nil, false, nil
	}
	table, ok := servers.(map[string]any)
	if !ok {
		return nil, false, &ShapeError{Msg: fmt.Sprintf("%q is not a table", path[0])}
	}
	entry, found := table[path[1]]
	if !found {
		return nil, false, nil
	}
	data, err := json.Marshal(entry)
	if err != nil {
		return nil, false, err
	}
	order, _ := d.memberOrder(path)
	return inOrder(data, order), true, nil
}

// memberOrder is the order in which the members of the table at path are written: its keys, then its subtables,
// which are also returned alone.
func (d *tomlDoc) memberOrder(path []string) (keys, subtables []string) {
	var table []string
	p := unstable.Parser{}
	p.Reset(d.src)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = table[:0]
			for it := e.Key(); it.Next(); {
				table = append(table, string(it.Node().Data))
			}
			if len(table) == len(path)+1 && slices.Equal(table[:len(path)], path) && e.Kind == unstable.Table {
				keys, subtables = append(keys, table[len(path)]), append(subtables, table[len(path)])
			}
		case unstable.KeyValue:
			if it := e.Key(); slices.Equal(table, path) && it.Next() {
				keys = append(keys, string(it.Node().Data))
			}
		}
	}
	return keys, subtables
}

func (d *tomlDoc) Set(value json.RawMessage, path ...string) (bool, error) {
	have, found, err := d.Get(path...)
	if err != nil || (found && jsonedit.Equal(have, value)) {
		return false, err
	}
	_, subtables := d.memberOrder(path)
	table, err := tomlTable(path, value, subtables)
	if err != nil {
		return false, err
	}
	sections, err := d.sections(path)
	if err != nil {
		return false, err
	}
	if found && len(sections) == 0 {
		return false, &ShapeError{Msg: fmt.Sprintf("[%s] is written inline: write it as a table of its own, or change it by hand",
			tomlKey(path))}
	}
	nl := lineBreak(d.src)
	table = strings.ReplaceAll(table, "\n", nl)
	out := d.src
	if len(sections) == 0 {
		out = bytes.Clone(out)
		if len(bytes.TrimSpace(out)) > 0 {
			if !bytes.HasSuffix(out, []byte("\n")) {
				out = append(out, nl...)
			}
			out = append(out, nl...)
		}
		out = append(out, table...)
	} else {
		for i := 1; i < len(sections); i++ { // a subtable goes with the blank lines that set it apart
			sections[i].start = blankLinesBefore(d.src, sections[i].start)
		}
		out = replaceSpans(out, sections, table)
	}
	return true, d.commit(out, path, value)
}

func (d *tomlDoc) Delete(path ...string) (bool, error) {
	_, found, err := d.Get(path...)
	if err != nil || !found {
		return false, err
	}
	sections, err := d.sections(path)
	if err != nil {
		return false, err
	}
	if len(sections) == 0 {
		return false, &ShapeError{Msg: fmt.Sprintf("[%s] is written inline: remove it by hand", tomlKey(path))}
	}
	for i := range sections { // with the blank lines that set a table apart from the one before
		sections[i].start = blankLinesBefore(d.src, sections[i].start)
	}
	return true, d.commit(replaceSpans(d.src, sections, ""), path, nil)
}

// commit makes out the document once it reads back as the old one with only the entry at path changed to value.
func (d *tomlDoc) commit(out []byte, path []string, value json.RawMessage) error {
	before, err := d.values()
	if err != nil {
		return err
	}
	next := &tomlDoc{src: out}
	after, err := next.values()
	if err != nil {
		return &ShapeError{Msg: "the change would not read back (" + err.Error() + "); change the file by hand"}
	}
	if err := checkEdit(before, after, path, value, ""); err != nil {
		return err
	}
	d.src = out
	return nil
}

// span is a range of the file's bytes.
type span struct{ start, end int }

// sections are the spans of the tables that make the entry at path: its own [servers.name] and its subtables
// ([servers.name.env]), each from its header's line to the next header, less the comments and blank lines that
// lead into that next header.
func (d *tomlDoc) sections(path []string) ([]span, error) {
	type header struct {
		keys  []string
		start int // the offset of the header's line
		array bool
	}
	var headers []header
	p := unstable.Parser{}
	p.Reset(d.src)
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.Table && e.Kind != unstable.ArrayTable {
			continue
		}
		h := header{array: e.Kind == unstable.ArrayTable, start: -1}
		for it := e.Key(); it.Next(); {
			n := it.Node()
			if h.start < 0 {
				h.start = lineStart(d.src, int(n.Raw.Offset))
			}
			h.keys = append(h.keys, string(n.Data))
		}
		headers = append(headers, h)
	}
	if err := p.Error(); err != nil {
		return nil, &ShapeError{Msg: err.Error()}
	}
	var spans []span
	for i, h := range headers {
		if len(h.keys) < len(path) || !slices.Equal(h.keys[:len(path)], path) {
			continue
		}
		if h.array {
			return nil, &ShapeError{Line: lineOf(d.src, h.start), Msg: fmt.Sprintf("[[%s]] is an array of tables: change it by hand",
				tomlKey(h.keys))}
		}
		end := len(d.src)
		if i+1 < len(headers) {
			end = leadIn(d.src, headers[i+1].start)
		}
		spans = append(spans, span{h.start, end})
	}
	return spans, nil
}

// replaceSpans is src with the first span replaced by text and the others removed.
func replaceSpans(src []byte, spans []span, text string) []byte {
	var out []byte
	at := 0
	for i, s := range spans {
		out = append(out, src[at:s.start]...)
		if i == 0 {
			out = append(out, text...)
		}
		at = s.end
	}
	return append(out, src[at:]...)
}

// lineStart is the offset of the start of the line offset is on.
func lineStart(src []byte, offset int) int {
	return bytes.LastIndexByte(src[:offset], '\n') + 1
}

// lineOf is the number of the line offset is on.
func lineOf(src []byte, offset int) int { return 1 + bytes.Count(src[:offset], []byte("\n")) }

// leadIn moves start, the start of a header's line, back over the comment and blank lines just above it: they
// introduce that header, and stay with it.
func leadIn(src []byte, start int) int {
	for start > 0 {
		prev := lineStart(src, start-1)
		line := bytes.TrimSpace(src[prev:start])
		if len(line) != 0 && line[0] != '#' {
			break
		}
		start = prev
	}
	return start
}

// blankLinesBefore moves start, the start of a line, back over the blank lines just above it.
func blankLinesBefore(src []byte, start int) int {
	for start > 0 {
		prev := lineStart(src, start-1)
		if len(bytes.TrimSpace(src[prev:start])) != 0 {
			break
		}
		start = prev
	}
	return start
}

// bareKey is a TOML key that needs no quotes.
var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tomlKey is a dotted key, each part quoted when it must be.
func tomlKey(parts []string) string {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = tomlKeyPart(p)
	}
	return strings.Join(quoted, ".")
}

func tomlKeyPart(p string) string {
	if bareKey.MatchString(p) {
		return p
	}
	return tomlString(p)
}

// tomlString is s as a TOML basic string: JSON's escapes, but for \/ which encoding/json never writes, are TOML's.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// tomlTable is the entry value at path as a table: its header, then a line for each member in the entry's order,
// objects inside it as inline tables, but for the members named in subtables, which follow as tables of their own
// ([servers.name.env]), as the file had them.
func tomlTable(path []string, value json.RawMessage, subtables []string) (string, error) {
	obj, err := jsonedit.Parse(value)
	if err != nil {
		return "", err
	}
	var b, subs strings.Builder
	fmt.Fprintf(&b, "[%s]\n", tomlKey(path))
	for _, m := range obj {
		if _, err := jsonedit.Parse(m.Value); err == nil && slices.Contains(subtables, m.Key) {
			sub, err := tomlTable(append(slices.Clone(path), m.Key), m.Value, nil)
			if err != nil {
				return "", err
			}
			subs.WriteString("\n" + sub)
			continue
		}
		v, err := tomlValue(m.Value)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s = %s\n", tomlKeyPart(m.Key), v)
	}
	return b.String() + subs.String(), nil
}

// tomlValue is a JSON value written as TOML.
func tomlValue(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return "", errors.New("empty value")
	case raw[0] == '{':
		obj, err := jsonedit.Parse(raw)
		if err != nil {
			return "", err
		}
		parts := make([]string, 0, len(obj))
		for _, m := range obj {
			v, err := tomlValue(m.Value)
			if err != nil {
				return "", err
			}
			parts = append(parts, tomlKeyPart(m.Key)+" = "+v)
		}
		if len(parts) == 0 {
			return "{}", nil
		}
		return "{ " + strings.Join(parts, ", ") + " }", nil
	case raw[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return "", err
		}
		parts := make([]string, 0, len(items))
		for _, item := range items {
			v, err := tomlValue(item)
			if err != nil {
				return "", err
			}
			parts = append(parts, v)
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return tomlString(s), nil
	case string(raw) == "null":
		return "", errors.New("TOML has no null")
	}
	return string(raw), nil // a number or a boolean, written alike
}
