package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jsonedit"
)

// yamlDoc is a YAML file (Goose's or Continue's config.yaml) whose entry at a path of two names is a member of a
// block mapping (Goose's extensions) or, with a listKey, the item of a block sequence whose listKey field is that
// name (Continue's mcpServers). Set replaces the entry's lines, or adds them after the last entry, in the file's
// indentation; Delete removes them. The YAML library finds where each entry starts; every other line, comments
// included, stays as it was: re-encoding the whole file would drop blank lines and change its indentation.
type yamlDoc struct {
	src     []byte
	listKey string
}

func parseYAML(data []byte, listKey string) (*yamlDoc, error) {
	d := &yamlDoc{src: bytes.Clone(data), listKey: listKey}
	if _, err := d.top(); err != nil {
		return nil, err
	}
	return d, nil
}

// top is the mapping at the top of the file; nil for a file with nothing in it.
func (d *yamlDoc) top() (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(d.src))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, nil
	} else if err != nil {
		return nil, yamlError(err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, &ShapeError{Msg: "the file holds more than one YAML document"}
	}
	var v any
	if err := doc.Decode(&v); err != nil { // a key written twice, among others
		return nil, yamlError(err)
	}
	top := doc.Content[0]
	switch {
	case top.Kind == yaml.ScalarNode && top.Tag == "!!null":
		return nil, nil
	case top.Kind != yaml.MappingNode:
		return nil, &ShapeError{Line: top.Line, Msg: "not a YAML mapping"}
	}
	return top, nil
}

// yamlError is a YAML library error without its "yaml: " prefix: "line 3: did not find expected key".
func yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	return &ShapeError{Msg: msg}
}

func (d *yamlDoc) Bytes() []byte { return bytes.Clone(d.src) }

// values is the file decoded; an empty one is an empty mapping.
func (d *yamlDoc) values() (any, error) {
	var v any
	if err := yaml.Unmarshal(d.src, &v); err != nil {
		return nil, yamlError(err)
	}
	if v == nil {
		v = map[string]any{}
	}
	return v, nil
}

// place is where a path leads: the key of the servers and their collection, and the entry's first node (its key,
// or the sequence item) when it is there.
type place struct {
	key, servers *yaml.Node
	entry        *yaml.Node
	entryValue   *yaml.Node
	last         *yaml.Node // the collection's last entry's first node
}

func (d *yamlDoc) find(path []string) (place, error) {
	if len(path) != 2 {
		return place{}, fmt.Errorf("a YAML entry is at a path of two names, not %q", path)
	}
	top, err := d.top()
	if err != nil || top == nil {
		return place{}, err
	}
	var p place
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == path[0] {
			p.key, p.servers = top.Content[i], top.Content[i+1]
		}
	}
	if p.servers == nil || isEmpty(p.servers) {
		return p, nil
	}
	want, what := yaml.MappingNode, "mapping"
	if d.listKey != "" {
		want, what = yaml.SequenceNode, "list"
	}
	if p.servers.Kind != want {
		return p, &ShapeError{Line: p.servers.Line, Msg: fmt.Sprintf("%q is not a %s", path[0], what)}
	}
	if p.servers.Style&yaml.FlowStyle != 0 {
		return p, &ShapeError{Line: p.servers.Line, Msg: fmt.Sprintf("%q is written in flow style: write it as a block, "+
			"one entry a line, or change it by hand", path[0])}
	}
	if d.listKey == "" {
		for i := 0; i+1 < len(p.servers.Content); i += 2 {
			if p.servers.Content[i].Value == path[1] {
				p.entry, p.entryValue = p.servers.Content[i], p.servers.Content[i+1]
			}
			p.last = p.servers.Content[i]
		}
		return p, nil
	}
	for _, item := range p.servers.Content {
		if item.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(item.Content); i += 2 {
				if item.Content[i].Value == d.listKey && item.Content[i+1].Value == path[1] {
					p.entry, p.entryValue = item, item
				}
			}
		}
		p.last = item
	}
	return p, nil
}

// isEmpty reports whether n holds nothing: null (`servers:`), {} or [].
func isEmpty(n *yaml.Node) bool {
	return (n.Kind == yaml.ScalarNode && n.Tag == "!!null") ||
		((n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && len(n.Content) == 0)
}

func (d *yamlDoc) Get(path ...string) (json.RawMessage, bool, error) {
	p, err := d.find(path)
	if err != nil || p.entryValue == nil {
		return nil, false, err
	}
	var v any
	if err := p.entryValue.Decode(&v); err != nil {
		return nil, false, yamlError(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false, err
	}
	var order []string // the entry's keys as the file writes them
	for i := 0; i+1 < len(p.entryValue.Content); i += 2 {
		order = append(order, p.entryValue.Content[i].Value)
	}
	return inOrder(data, order), true, nil
}

func (d *yamlDoc) Set(value json.RawMessage, path ...string) (bool, error) {
	p, err := d.find(path)
	if err != nil {
		return false, err
	}
	if have, found, err := d.Get(path...); err != nil || (found && jsonedit.Equal(have, value)) {
		return false, err
	}
	entry, err := yamlBlock(value)
	if err != nil {
		return false, err
	}
	if d.listKey == "" {
		entry = path[1] + ":\n" + indent(entry, 2)
	} else {
		entry = "- " + indent(entry, 2)[2:]
	}
	lines := splitLines(d.src)
	nl := lineBreak(d.src)
	var out []string
	switch {
	case p.entry != nil: // replace its lines
		col, err := d.column(lines, p.entry)
		if err != nil {
			return false, err
		}
		start, end := p.entry.Line-1, entryEnd(lines, p.entry.Line-1, col)
		out = concatLines(lines[:start], textLines(indent(entry, col), nl), lines[end:])
	case p.last != nil: // after the last entry, at its indentation
		col, err := d.column(lines, p.last)
		if err != nil {
			return false, err
		}
		end := entryEnd(lines, p.last.Line-1, col)
		out = concatLines(lines[:end], textLines(indent(entry, col), nl), lines[end:])
	case p.key != nil: // `servers:` with nothing, {} or []: the key's line takes the entry under it
		at := p.key.Line - 1
		if p.servers.Line != p.key.Line && !(p.servers.Kind == yaml.ScalarNode && p.servers.Value == "") {
			return false, &ShapeError{Line: p.servers.Line, Msg: fmt.Sprintf("%q is empty in an unusual way: change it by hand", path[0])}
		}
		col := p.key.Column - 1
		keyLine := lines[at][:col] + path[0] + ":" + lineComment(lines[at], p.key) + nl
		out = concatLines(lines[:at], []string{keyLine}, textLines(indent(entry, col+2), nl), lines[at+1:])
	default: // no servers yet: at the end of the file
		out = append(out, lines...)
		if n := len(out); n > 0 && !strings.HasSuffix(out[n-1], "\n") {
			out[n-1] += nl
		}
		out = append(out, textLines(path[0]+":\n"+indent(entry, 2), nl)...)
	}
	return true, d.commit([]byte(strings.Join(out, "")), path, value)
}

func (d *yamlDoc) Delete(path ...string) (bool, error) {
	p, err := d.find(path)
	if err != nil || p.entry == nil {
		return false, err
	}
	lines := splitLines(d.src)
	col, err := d.column(lines, p.entry)
	if err != nil {
		return false, err
	}
	start, end := p.entry.Line-1, entryEnd(lines, p.entry.Line-1, col)
	out := concatLines(lines[:start], lines[end:])
	entries := len(p.servers.Content)
	if d.listKey == "" {
		entries /= 2
	}
	if entries == 1 { // the servers' key stays, with nothing: {} or []
		at := p.key.Line - 1
		empty := " {}"
		if d.listKey != "" {
			empty = " []"
		}
		line := out[at]
		colon := p.key.Column - 1 + len(p.key.Value)
		if colon >= len(line) || line[colon] != ':' {
			return false, &ShapeError{Line: p.key.Line, Msg: fmt.Sprintf("%q is written in an unusual way: change it by hand", path[0])}
		}
		out[at] = line[:colon+1] + empty + lineComment(line, p.key) + lineBreak(d.src)
	}
	return true, d.commit([]byte(strings.Join(out, "")), path, nil)
}

// commit makes out the document once it reads back as the old one with only the entry at path changed to value.
func (d *yamlDoc) commit(out []byte, path []string, value json.RawMessage) error {
	before, err := d.values()
	if err != nil {
		return err
	}
	next := &yamlDoc{src: out, listKey: d.listKey}
	after, err := next.values()
	if err != nil {
		return &ShapeError{Msg: "the change would not read back (" + err.Error() + "); change the file by hand"}
	}
	if err := checkEdit(before, after, path, value, d.listKey); err != nil {
		return err
	}
	d.src = out
	return nil
}

// lineComment is the comment at the end of line, the line of key whose value is empty or goes ("extensions: {}
// # mine"), with a space before it: " # mine"; "" when there is none.
func lineComment(line string, key *yaml.Node) string {
	line = strings.TrimRight(line, "\r\n")
	colon := key.Column - 1 + len(key.Value)
	if colon >= len(line) {
		return ""
	}
	_, comment, found := strings.Cut(line[colon+1:], "#") // the value is null, {} or []: a # starts a comment
	if !found {
		return ""
	}
	return " #" + comment
}

// column is the indentation of the entry that starts at n: its key's column, or the dash of its sequence item.
func (d *yamlDoc) column(lines []string, n *yaml.Node) (int, error) {
	col := n.Column - 1
	if d.listKey == "" {
		return col, nil
	}
	line := lines[n.Line-1]
	dash := strings.LastIndexByte(line[:min(col, len(line))], '-')
	if dash < 0 || strings.TrimSpace(line[:dash]) != "" {
		return 0, &ShapeError{Line: n.Line, Msg: "a list item is written in an unusual way: change it by hand"}
	}
	return dash, nil
}

// entryEnd is the index of the first line after the entry that starts at line start with indentation col: the
// lines after it that are blank or indented deeper belong to it, less the blank ones at its end.
func entryEnd(lines []string, start, col int) int {
	end := start + 1
	for i := start + 1; i < len(lines); i++ {
		text := strings.TrimRight(lines[i], "\r\n")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if len(text)-len(strings.TrimLeft(text, " ")) <= col {
			break
		}
		end = i + 1
	}
	return end
}

// yamlBlock is a JSON value as a YAML block, its members in the JSON's order, ending in a line break.
func yamlBlock(value json.RawMessage) (string, error) {
	n, err := yamlNode(value)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// yamlNode is a JSON value as a YAML node.
func yamlNode(raw json.RawMessage) (*yaml.Node, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New("empty value")
	}
	switch raw[0] {
	case '{':
		obj, err := jsonedit.Parse(raw)
		if err != nil {
			return nil, err
		}
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, m := range obj {
			v, err := yamlNode(m.Value)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: m.Key}, v)
		}
		return n, nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, item := range items {
			v, err := yamlNode(item)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		return n, nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	n := &yaml.Node{}
	err := n.Encode(v)
	return n, err
}

// indent puts n spaces before each line of text.
func indent(text string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l != "" && l != "\n" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "")
}

// splitLines is src as lines, each with its line break (the last may have none).
func splitLines(src []byte) []string {
	lines := strings.SplitAfter(string(src), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// textLines is text, which ends in \n, as lines ending in nl.
func textLines(text, nl string) []string {
	lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\n") + nl
	}
	return lines
}

// concatLines joins lists of lines into a new one.
func concatLines(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
