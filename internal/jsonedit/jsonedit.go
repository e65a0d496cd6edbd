// Package jsonedit edits one entry of a JSON object while keeping everything else as it was written. It is how the
// server changes files people also edit without reshuffling them. Doc keeps every byte it does not change
// (comments, trailing commas, a byte order mark, indentation: a client's mcp.json); Object keeps the order of the
// keys and the values of the entries it does not touch, and reformats the rest (the research workspace's
// settings.json).
package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Member is one key of an Object with its raw value.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object as an ordered list of members.
type Object []Member

// ErrNotObject is returned by Parse for valid JSON that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// Parse reads a JSON object. Empty input (or only blanks) is an empty object.
func Parse(data []byte) (Object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Object{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ErrNotObject
	}
	o := Object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.Set(key, v) // a repeated key keeps its first place and its last value, as encoding/json reads it
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	// Only the end may follow: text that is not JSON there ("{}x") is an error too, not a token error to ignore.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return o, nil
}

// Get returns the raw value of key.
func (o Object) Get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// Object returns key's value parsed as an object; ok is false when key is absent or holds something else.
func (o Object) Object(key string) (Object, bool) {
	v, found := o.Get(key)
	if !found {
		return nil, false
	}
	obj, err := Parse(v)
	return obj, err == nil
}

// Set replaces key's value in place, or appends key.
func (o *Object) Set(key string, value json.RawMessage) {
	for i, m := range *o {
		if m.Key == key {
			(*o)[i].Value = value
			return
		}
	}
	*o = append(*o, Member{key, value})
}

// SetValue is Set with v encoded as JSON.
func (o *Object) SetValue(key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	o.Set(key, data)
	return nil
}

// Delete removes key; it reports whether key was there.
func (o *Object) Delete(key string) bool {
	for i, m := range *o {
		if m.Key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return true
		}
	}
	return false
}

// MarshalJSON writes the members in order, compactly.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(m.Key)
		b.Write(key)
		b.WriteByte(':')
		if err := json.Compact(&b, m.Value); err != nil {
			return nil, fmt.Errorf("encode %s: %w", m.Key, err)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Format returns o indented with two spaces and ending in a newline, the way people write these files.
func (o Object) Format() ([]byte, error) {
	compact, err := o.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
