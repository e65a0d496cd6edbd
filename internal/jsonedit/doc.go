package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/tailscale/hujson"
)

// Doc is a JSON file as it was written: standard JSON or JWCC (JSON with comments and trailing commas, which VS
// Code's mcp.json allows), with or without a UTF-8 byte order mark. Set and Delete change one member and format
// only what they write, in the file's own indentation and line endings: every other byte, comments and trailing
// commas included, comes back from Bytes as it was read.
type Doc struct {
	bom  bool
	src  []byte // the document without the BOM, always the packing of root: lines and indentation are read here
	root hujson.Value
}

var byteOrderMark = []byte("\xef\xbb\xbf")

// SyntaxError is a document that is neither JSON nor JWCC.
type SyntaxError struct {
	Line, Column int // where the parser stopped; 0 when it did not say
	Msg          string
}

func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// DuplicateKeyError is an object on the way to a member that has that member's name twice: which one a program
// reads differs from one parser to the next, so neither is read nor changed.
type DuplicateKeyError struct {
	Key         string
	Line, First int // the second occurrence's line, and the first's
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("line %d: %q is there twice (also on line %d): remove one", e.Line, e.Key, e.First)
}

// NotObjectError is a value that must be an object to hold a member and is something else.
type NotObjectError struct {
	Key  string // the member holding it; "" for the whole document
	Line int
}

func (e *NotObjectError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("line %d: %v", e.Line, ErrNotObject)
	}
	return fmt.Sprintf("line %d: %q is not an object", e.Line, e.Key)
}

func (e *NotObjectError) Unwrap() error { return ErrNotObject }

// ParseDoc reads a JSON or JWCC object. Empty input (or only blanks) is an empty object, which Bytes writes
// indented with two spaces and ending in a newline.
func ParseDoc(data []byte) (*Doc, error) {
	d := &Doc{}
	if bytes.HasPrefix(data, byteOrderMark) {
		d.bom, data = true, data[len(byteOrderMark):]
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{\n}\n")
	}
	d.src = bytes.Clone(data) // the tree aliases its input: nothing else may write there
	root, err := hujson.Parse(d.src)
	if err != nil {
		return nil, syntaxError(err)
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return nil, &NotObjectError{Line: d.line(root.StartOffset)}
	}
	d.root = root
	return d, nil
}

// syntaxError turns hujson's "hujson: line L, column C: msg" into a SyntaxError.
func syntaxError(err error) error {
	e := &SyntaxError{Msg: err.Error()}
	if n, _ := fmt.Sscanf(e.Msg, "hujson: line %d, column %d:", &e.Line, &e.Column); n == 2 {
		if inner := errors.Unwrap(err); inner != nil {
			e.Msg = inner.Error()
		}
	} else {
		e.Line, e.Column = 0, 0
	}
	return e
}

// Bytes is the document with its changes.
func (d *Doc) Bytes() []byte {
	if d.bom {
		return slices.Concat(byteOrderMark, d.src)
	}
	return bytes.Clone(d.src)
}

// Get returns the value at path (member names from the root) as standard JSON; ok is false when it is absent.
func (d *Doc) Get(path ...string) (value json.RawMessage, ok bool, err error) {
	p, err := d.find(path)
	if err != nil || p.idx < 0 {
		return nil, false, err
	}
	return standard(p.obj.Members[p.idx].Value), true, nil
}

// Set makes value the value at path, adding the member (and the objects on the way) when missing. A member that
// is there keeps its place and the comments around it; one that already holds an equal value is left as it was
// written, and changed is false.
func (d *Doc) Set(value json.RawMessage, path ...string) (changed bool, err error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, value); err != nil {
		return false, fmt.Errorf("encode %v: %w", path, err)
	}
	value = compact.Bytes()
	p, err := d.find(path)
	if err != nil {
		return false, err
	}
	if p.idx >= 0 {
		m := &p.obj.Members[p.idx]
		if Equal(standard(m.Value), value) {
			return false, nil
		}
		// A value written on one line stays on one line; one spread over lines is spread the same way.
		multiline := bytes.IndexByte(d.src[m.Value.StartOffset:m.Value.EndOffset], '\n') >= 0
		m.Value.Value, err = d.render(value, multiline, d.lineIndent(m.Name.StartOffset))
		if err != nil {
			return false, err
		}
		d.sync()
		return true, nil
	}
	for i := len(path) - 1; i > p.depth; i-- { // the objects missing on the way
		name, _ := json.Marshal(path[i])
		value = slices.Concat([]byte("{"), name, []byte(":"), value, []byte("}"))
	}
	if err := d.insert(p, path[p.depth], value); err != nil {
		return false, err
	}
	d.sync()
	return true, nil
}

// Delete removes the member at path with the whitespace of its lines; the comments around it stay. It reports
// whether the member was there. An object left empty with nothing but blanks in it is written {}.
func (d *Doc) Delete(path ...string) (bool, error) {
	p, err := d.find(path)
	if err != nil || p.idx < 0 {
		return false, err
	}
	obj, i := p.obj, p.idx
	gone := obj.Members[i]
	trailingComma := hasTrailingComma(obj)
	last := i == len(obj.Members)-1
	var follow hujson.Extra // what comes after the member and its comma: the next member's leading extra, or the object's last
	if last {
		follow = obj.AfterExtra
	} else {
		follow = obj.Members[i+1].Name.BeforeExtra
	}
	var between hujson.Extra // comments between the value and its comma
	if !isBlank(gone.Value.AfterExtra) {
		between = gone.Value.AfterExtra
	}
	extra := joinAround(gone.Name.BeforeExtra, between, follow, i == 0)
	obj.Members = slices.Delete(obj.Members, i, i+1)
	if last && len(obj.Members) > 0 { // the member before becomes the last: it keeps the object's trailing-comma style
		prev := &obj.Members[len(obj.Members)-1].Value
		switch {
		case trailingComma && prev.AfterExtra == nil:
			prev.AfterExtra = hujson.Extra{}
		case !trailingComma && prev.AfterExtra != nil:
			extra = concat(prev.AfterExtra, extra)
			prev.AfterExtra = nil
		}
	}
	switch {
	case len(obj.Members) == 0:
		if isBlank(extra) {
			extra = nil
		}
		obj.AfterExtra = extra
	case last:
		obj.AfterExtra = extra
	default:
		obj.Members[i].Name.BeforeExtra = extra
	}
	d.sync()
	return true, nil
}

// joinAround is the extra left where a member was: before is the extra before its name, between the comments
// before its comma, follow the extra after that comma (or before the closing brace).
func joinAround(before, between, follow hujson.Extra, first bool) hujson.Extra {
	if k := bytes.LastIndexByte(before, '\n'); k >= 0 {
		// The member began a line of its own: that line goes, up to the line break the next text stands on.
		return concat(before[:k+1], between, trimLineBreak(follow))
	}
	// On one line with others.
	if first {
		return concat(before, between, bytes.TrimLeft(follow, " \t"))
	}
	if isBlank(before) {
		return concat(between, follow)
	}
	return concat(before, between, follow)
}

// place is where a path leads: the object holding its last name reached, and that name's member in it.
type place struct {
	holder *hujson.Value  // the value that is obj
	obj    *hujson.Object //
	depth  int            // the index in the path of the name looked up in obj
	idx    int            // that name's member in obj; -1 when absent
}

// find follows path from the root as far as it exists.
func (d *Doc) find(path []string) (place, error) {
	if len(path) == 0 {
		return place{}, errors.New("jsonedit: an empty path")
	}
	holder := &d.root
	for depth, name := range path {
		obj, ok := holder.Value.(*hujson.Object)
		if !ok {
			return place{}, &NotObjectError{Key: path[depth-1], Line: d.line(holder.StartOffset)} // the root is an object
		}
		idx, err := d.member(obj, name)
		if err != nil {
			return place{}, err
		}
		if idx < 0 || depth == len(path)-1 {
			return place{holder, obj, depth, idx}, nil
		}
		holder = &obj.Members[idx].Value
	}
	panic("unreachable")
}

// member is the index of name in obj, -1 when absent, or a DuplicateKeyError.
func (d *Doc) member(obj *hujson.Object, name string) (int, error) {
	idx := -1
	for i, m := range obj.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); !ok || lit.String() != name {
			continue
		}
		if idx >= 0 {
			return -1, &DuplicateKeyError{Key: name, Line: d.line(m.Name.StartOffset), First: d.line(obj.Members[idx].Name.StartOffset)}
		}
		idx = i
	}
	return idx, nil
}

// insert appends the member name: value to p's object the way its members are written: each on a line of its own
// with their indentation, or on one line. Comments on the last member's line stay on that line, after the comma
// the new member needs, and a trailing comma stays trailing.
func (d *Doc) insert(p place, name string, value []byte) error {
	obj := p.obj
	var m hujson.ObjectMember
	m.Name.Value = hujson.String(name)
	m.Value.BeforeExtra = hujson.Extra(" ")
	var multiline bool
	var indent string
	if n := len(obj.Members); n > 0 {
		before := obj.Members[n-1].Name.BeforeExtra
		if k := bytes.LastIndexByte(before, '\n'); k >= 0 {
			multiline, indent = true, leadingBlank(before[k+1:])
		} else if n > 1 && isBlank(before) {
			m.Name.BeforeExtra = bytes.Clone(before)
		} else {
			m.Name.BeforeExtra = hujson.Extra(" ")
		}
	} else {
		// An empty object is opened onto lines of its own in a file written on several lines.
		multiline = bytes.IndexByte(d.src[:d.root.EndOffset], '\n') >= 0
		indent = d.lineIndent(p.holder.StartOffset) + d.unit()
		if !multiline { // { /* none */ } gets { /* none */ "name": value }
			m.Name.BeforeExtra = bytes.Clone(obj.AfterExtra)
			obj.AfterExtra = bytes.Clone(obj.AfterExtra[len(bytes.TrimRight(obj.AfterExtra, " \t")):])
		}
	}
	if multiline {
		if k := bytes.LastIndexByte(obj.AfterExtra, '\n'); k >= 0 {
			head := obj.AfterExtra[:k+1]
			m.Name.BeforeExtra = concat(head, []byte(indent))
			obj.AfterExtra = concat(lineBreak(head), obj.AfterExtra[k+1:])
		} else {
			m.Name.BeforeExtra = concat([]byte(d.newline()), []byte(indent))
			if len(obj.Members) == 0 {
				obj.AfterExtra = concat(obj.AfterExtra, []byte(d.newline()), []byte(d.lineIndent(p.holder.StartOffset)))
			}
		}
	}
	var err error
	if m.Value.Value, err = d.render(value, multiline, indent); err != nil {
		return err
	}
	if hasTrailingComma(obj) {
		m.Value.AfterExtra = hujson.Extra{}
	}
	obj.Members = append(obj.Members, m)
	return nil
}

// render writes value as it will stand in the file: over several lines, at the indentation of a member written at
// indent, or on one line with a space after each colon and comma.
func (d *Doc) render(value []byte, multiline bool, indent string) (hujson.ValueTrimmed, error) {
	var b bytes.Buffer
	if multiline {
		if err := json.Indent(&b, value, indent, d.unit()); err != nil {
			return nil, err
		}
	} else {
		b.Write(value)
	}
	out := b.Bytes()
	if nl := d.newline(); nl != "\n" { // a JSON string holds no raw line break: every one is the layout's
		out = bytes.ReplaceAll(out, []byte("\n"), []byte(nl))
	}
	v, err := hujson.Parse(out)
	if err != nil {
		return nil, err
	}
	if !multiline {
		for x := range v.All() {
			switch c := x.Value.(type) {
			case *hujson.Object:
				for i := range c.Members {
					if i > 0 {
						c.Members[i].Name.BeforeExtra = hujson.Extra(" ")
					}
					c.Members[i].Value.BeforeExtra = hujson.Extra(" ")
				}
			case *hujson.Array:
				for i := 1; i < len(c.Elements); i++ {
					c.Elements[i].BeforeExtra = hujson.Extra(" ")
				}
			}
		}
	}
	return v.Value, nil
}

// sync packs the tree into src, so that lines and indentation are read from what Bytes returns.
func (d *Doc) sync() {
	d.src = d.root.Pack()
	d.root.UpdateOffsets()
}

// line is the line number of offset in src.
func (d *Doc) line(offset int) int { return 1 + bytes.Count(d.src[:offset], []byte("\n")) }

// lineIndent is the indentation of the line offset is on.
func (d *Doc) lineIndent(offset int) string {
	return leadingBlank(d.src[bytes.LastIndexByte(d.src[:offset], '\n')+1:])
}

// unit is one level of the file's indentation: the root's first member written on a line of its own says it, or
// two spaces.
func (d *Doc) unit() string {
	for _, m := range d.root.Value.(*hujson.Object).Members {
		if k := bytes.LastIndexByte(m.Name.BeforeExtra, '\n'); k >= 0 {
			if indent := leadingBlank(m.Name.BeforeExtra[k+1:]); indent != "" {
				return indent
			}
		}
	}
	return "  "
}

// newline is the file's line break: \r\n when it has one, otherwise \n.
func (d *Doc) newline() string {
	if bytes.Contains(d.src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// Equal reports whether a and b hold the same JSON value: formatting and the order of keys aside.
func Equal(a, b []byte) bool {
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

// standard is v as compact standard JSON.
func standard(v hujson.Value) []byte {
	c := v.Clone()
	c.Minimize()
	return c.Pack()
}

func hasTrailingComma(obj *hujson.Object) bool {
	return len(obj.Members) > 0 && obj.Members[len(obj.Members)-1].Value.AfterExtra != nil
}

// concat joins extras into a new one: the tree's extras alias the parsed input, which must not be written to.
func concat(parts ...[]byte) hujson.Extra {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// trimLineBreak removes the blanks and the line break that extra starts with, if it starts so.
func trimLineBreak(extra []byte) []byte {
	rest := bytes.TrimLeft(extra, " \t")
	switch {
	case bytes.HasPrefix(rest, []byte("\r\n")):
		return rest[2:]
	case bytes.HasPrefix(rest, []byte("\n")):
		return rest[1:]
	}
	return extra
}

// lineBreak is the line break text ends with.
func lineBreak(text []byte) []byte {
	if bytes.HasSuffix(text, []byte("\r\n")) {
		return []byte("\r\n")
	}
	return []byte("\n")
}

func leadingBlank(b []byte) string {
	return string(b[:len(b)-len(bytes.TrimLeft(b, " \t"))])
}

func isBlank(b []byte) bool { return len(bytes.Trim(b, " \t\r\n")) == 0 }
