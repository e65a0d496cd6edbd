package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jsonedit"
)

// document is a client's file parsed for changing one entry: Set and Delete change the text of that entry alone,
// and Bytes gives back every other byte as it was read. Values come and go as JSON whatever the file's format.
type document interface {
	Get(path ...string) (value json.RawMessage, ok bool, err error)
	Set(value json.RawMessage, path ...string) (changed bool, err error)
	Delete(path ...string) (changed bool, err error)
	Bytes() []byte
}

// parse reads data, the client's file (nil for none), in the client's format.
func (c Client) parse(data []byte) (document, error) {
	switch c.Format {
	case TOML:
		return parseTOML(data)
	case YAML:
		return parseYAML(data, c.listKey)
	}
	return jsonedit.ParseDoc(data)
}

// ShapeError is a file that parses but that this package cannot change safely: the servers are not a table or a
// mapping, this server's entry is written inline or in flow style, or the change would not read back as written.
// Such a file is left alone; a person can make the change by hand.
type ShapeError struct {
	Line int // 0 when no line is to blame
	Msg  string
}

func (e *ShapeError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// isFileProblem reports whether err is about what the file holds, rather than a failure of this program.
func isFileProblem(err error) bool {
	var dup *jsonedit.DuplicateKeyError
	var notObject *jsonedit.NotObjectError
	var syntax *jsonedit.SyntaxError
	var shape *ShapeError
	return errors.As(err, &dup) || errors.As(err, &notObject) || errors.As(err, &syntax) || errors.As(err, &shape)
}

// normalize is v as encoding/json reads it back, so that values decoded from TOML or YAML (int64, time.Time)
// compare with values decoded from JSON.
func normalize(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(data, &out)
	return out, err
}

// changedAt is before, a file's values, with the entry at path (a container, then a name) set to value, or removed
// when value is nil. listKey names the field of each item for a container that is a sequence.
func changedAt(before any, path []string, value any, listKey string) any {
	root, _ := before.(map[string]any)
	out := make(map[string]any, len(root)+1)
	for k, v := range root {
		out[k] = v
	}
	container := out[path[0]]
	if listKey != "" {
		items, _ := container.([]any)
		var kept []any
		replaced := false
		for _, item := range items {
			if m, ok := item.(map[string]any); ok && m[listKey] == path[1] {
				if value != nil && !replaced {
					kept, replaced = append(kept, value), true
				}
				continue
			}
			kept = append(kept, item)
		}
		if value != nil && !replaced {
			kept = append(kept, value)
		}
		if kept == nil {
			kept = []any{}
		}
		out[path[0]] = kept
		return out
	}
	members, _ := container.(map[string]any)
	changed := make(map[string]any, len(members)+1)
	for k, v := range members {
		changed[k] = v
	}
	if value == nil {
		delete(changed, path[1])
	} else {
		changed[path[1]] = value
	}
	out[path[0]] = changed
	return out
}

// checkEdit makes sure that after, a file's text once changed, reads back as before with only the entry at path
// changed to value (removed when value is nil): a text edit that would change anything else is refused.
func checkEdit(before, after any, path []string, value json.RawMessage, listKey string) error {
	var v any
	if value != nil {
		if err := json.Unmarshal(value, &v); err != nil {
			return err
		}
	}
	cannotCheck := func(err error) error { // a key that is not a string, say
		return &ShapeError{Msg: "the change cannot be checked (" + err.Error() + "); change the file by hand"}
	}
	b, err := normalize(before)
	if err != nil {
		return cannotCheck(err)
	}
	want, err := normalize(changedAt(b, path, v, listKey))
	if err != nil {
		return cannotCheck(err)
	}
	got, err := normalize(after)
	if err != nil {
		return cannotCheck(err)
	}
	if value == nil { // servers left empty may be written {} or be gone
		dropEmpty(want, path[0])
		dropEmpty(got, path[0])
	}
	if !reflect.DeepEqual(got, want) {
		return &ShapeError{Msg: "the change would not read back as written; change the file by hand"}
	}
	return nil
}

// dropEmpty removes key from v, a file's values, when it holds nothing.
func dropEmpty(v any, key string) {
	m, _ := v.(map[string]any)
	switch c := m[key].(type) {
	case map[string]any:
		if len(c) == 0 {
			delete(m, key)
		}
	case []any:
		if len(c) == 0 {
			delete(m, key)
		}
	}
}

// lineBreak is the line break of text: \r\n when it has one, otherwise \n.
func lineBreak(text []byte) string {
	if bytes.Contains(text, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}
