package jsonedit

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const entry = `{"type":"http","url":"http://127.0.0.1:3000/mcp"}`

// TestDocSet: Set writes one member in the file's own layout and leaves every other byte as it was.
func TestDocSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty file", "",
			"{\n  \"servers\": {\n    \"gs\": {\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:3000/mcp\"\n    }\n  }\n}\n"},
		{"appended after the last member, indentation copied",
			"{\n    \"servers\": {\n        \"mine\": {\"command\": \"x\"}\n    }\n}\n",
			"{\n    \"servers\": {\n        \"mine\": {\"command\": \"x\"},\n        \"gs\": {\n            \"type\": \"http\",\n            \"url\": \"http://127.0.0.1:3000/mcp\"\n        }\n    }\n}\n"},
		{"tabs", "{\n\t\"servers\": {\n\t\t\"mine\": {}\n\t}\n}",
			"{\n\t\"servers\": {\n\t\t\"mine\": {},\n\t\t\"gs\": {\n\t\t\t\"type\": \"http\",\n\t\t\t\"url\": \"http://127.0.0.1:3000/mcp\"\n\t\t}\n\t}\n}"},
		{"a comment on the last member's line stays there, after the comma",
			"{\n  \"servers\": {\n    \"mine\": {} // mine\n  }\n}\n",
			"{\n  \"servers\": {\n    \"mine\": {}, // mine\n    \"gs\": {\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:3000/mcp\"\n    }\n  }\n}\n"},
		{"a trailing comma stays trailing",
			"{\n  \"servers\": {\n    \"mine\": {},\n  },\n}\n",
			"{\n  \"servers\": {\n    \"mine\": {},\n    \"gs\": {\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:3000/mcp\"\n    },\n  },\n}\n"},
		{"an empty object is opened", "{\n  \"servers\": {},\n  \"inputs\": []\n}\n",
			"{\n  \"servers\": {\n    \"gs\": {\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:3000/mcp\"\n    }\n  },\n  \"inputs\": []\n}\n"},
		{"missing servers key added at the end", "{\n  // settings\n  \"theme\": \"dark\"\n}\n",
			"{\n  // settings\n  \"theme\": \"dark\",\n  \"servers\": {\n    \"gs\": {\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:3000/mcp\"\n    }\n  }\n}\n"},
		{"a file on one line stays on one line", `{"servers": {"mine": {"url": "http://x"}}}`,
			`{"servers": {"mine": {"url": "http://x"}, "gs": {"type": "http", "url": "http://127.0.0.1:3000/mcp"}}}`},
		{"an entry on one line is replaced on one line, its comments kept",
			"{\n  \"servers\": {\n    /* ours */ \"gs\": {\"url\": \"http://old\"}, // old\n    \"mine\": {}\n  }\n}\n",
			"{\n  \"servers\": {\n    /* ours */ \"gs\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:3000/mcp\"}, // old\n    \"mine\": {}\n  }\n}\n"},
		{"an entry over lines is replaced over lines, in place",
			"{\n  \"servers\": {\n    \"gs\": {\n      \"url\": \"http://old\"\n    },\n    \"mine\": {}\n  }\n}\n",
			"{\n  \"servers\": {\n    \"gs\": {\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:3000/mcp\"\n    },\n    \"mine\": {}\n  }\n}\n"},
		{"CRLF line endings", "{\r\n  \"servers\": {\r\n    \"mine\": {}\r\n  }\r\n}\r\n",
			"{\r\n  \"servers\": {\r\n    \"mine\": {},\r\n    \"gs\": {\r\n      \"type\": \"http\",\r\n      \"url\": \"http://127.0.0.1:3000/mcp\"\r\n    }\r\n  }\r\n}\r\n"},
		{"byte order mark kept", "\ufeff{\n  \"servers\": {}\n}\n",
			"\ufeff{\n  \"servers\": {\n    \"gs\": {\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:3000/mcp\"\n    }\n  }\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := ParseDoc([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			changed, err := d.Set([]byte(entry), "servers", "gs")
			if err != nil || !changed {
				t.Fatalf("Set: changed %v, %v", changed, err)
			}
			if got := string(d.Bytes()); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if _, err := ParseDoc(d.Bytes()); err != nil {
				t.Errorf("the result does not parse: %v", err)
			}
			if got, ok, err := d.Get("servers", "gs"); err != nil || !ok || !Equal(got, []byte(entry)) {
				t.Errorf("Get after Set: %s, %v, %v", got, ok, err)
			}
			// Set again: nothing to change, nothing written.
			if changed, err := d.Set([]byte(`{"url": "http://127.0.0.1:3000/mcp", "type": "http"}`), "servers", "gs"); err != nil || changed {
				t.Errorf("Set of an equal value: changed %v, %v", changed, err)
			}
		})
	}
}

// TestDocRoundTrip: Delete after Set gives back the bytes that were read, whatever their layout.
func TestDocRoundTrip(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"{\n  \"servers\": {\n    \"mine\": {}\n  }\n}\n",
		"{\n  \"servers\": {\n    \"mine\": {}, // mine\n  },\n}\n",
		"{\n  \"servers\": {\n    \"mine\": {} // mine\n    // \"old\": {}\n  }\n}\n",
		"\ufeff// VS Code\n{\r\n\t\"servers\": {\r\n\t\t\"mine\": {\"url\": \"x\",},\r\n\t},\r\n\t\"inputs\": [],\r\n}\r\n",
		"{\n  \"servers\": {},\n  \"inputs\": []\n}\n",
		`{"servers": {"mine": {"url": "http://x"}}}`,
		`{"servers":{"a":1,"b":2}}`,
		"{\"servers\": { /* none */ }}",
	} {
		d, err := ParseDoc([]byte(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if _, err := d.Set([]byte(entry), "servers", "gs"); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		connected := string(d.Bytes())
		if removed, err := d.Delete("servers", "gs"); err != nil || !removed {
			t.Fatalf("%q: Delete: %v, %v", in, removed, err)
		}
		if got := string(d.Bytes()); got != in {
			t.Errorf("round trip of\n%s\nvia\n%s\ngave\n%s", in, connected, got)
		}
	}
}

// TestDocDelete: Delete removes the member's lines, keeps the comments around it and the object's comma style.
func TestDocDelete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"first of several", "{\n  \"s\": {\n    \"gs\": 1,\n    \"b\": 2\n  }\n}", "{\n  \"s\": {\n    \"b\": 2\n  }\n}"},
		{"middle, with the comment of its line", "{\"s\": {\n  \"a\": 1,\n  \"gs\": 1, // ours\n  \"b\": 2\n}}", "{\"s\": {\n  \"a\": 1,\n // ours\n  \"b\": 2\n}}"},
		{"last, trailing comma kept", "{\"s\": {\n  \"a\": 1,\n  \"gs\": 1,\n}}", "{\"s\": {\n  \"a\": 1,\n}}"},
		{"last, no trailing comma", "{\"s\": {\n  \"a\": 1,\n  \"gs\": 1\n}}", "{\"s\": {\n  \"a\": 1\n}}"},
		{"only member: {}", "{\"s\": {\n    \"gs\": 1\n  }}", "{\"s\": {}}"},
		{"inline first", `{"s": {"gs": 1, "b": 2}}`, `{"s": {"b": 2}}`},
		{"inline last", `{"s": {"a": 1, "gs": 1}}`, `{"s": {"a": 1}}`},
		{"absent: unchanged", `{"s": {"a": 1}}`, `{"s": {"a": 1}}`},
		{"no servers: unchanged", `{"t": 1}`, `{"t": 1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := ParseDoc([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			removed, err := d.Delete("s", "gs")
			if err != nil || removed != (tt.in != tt.want) {
				t.Fatalf("Delete: %v, %v", removed, err)
			}
			if got := string(d.Bytes()); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestDocErrors: what cannot be read is said with its line; a key twice on the path is an error, not a guess.
func TestDocErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		path     []string
		want     string // the error's text
		check    func(error) bool
	}{
		{"syntax", "{\n  \"servers\": {\n    \"x\": ]\n  }\n}", nil,
			"line 3: invalid character ']' at start of value", func(err error) bool { var e *SyntaxError; return errors.As(err, &e) && e.Column == 10 }},
		{"unfinished", `{"servers": {`, nil, "line 1: parsing value: unexpected EOF", nil},
		{"comment only", "// nothing\n", nil, "line 2: parsing value: unexpected EOF", nil},
		{"an array", "\n[1]", nil, "line 2: not a JSON object", func(err error) bool { return errors.Is(err, ErrNotObject) }},
		{"servers twice", "{\n  \"servers\": {},\n  \"x\": 1,\n  \"servers\": {\"gs\": {}}\n}", []string{"servers", "gs"},
			`line 4: "servers" is there twice (also on line 2): remove one`, func(err error) bool { var e *DuplicateKeyError; return errors.As(err, &e) }},
		{"entry twice", "{\"servers\": {\n\"gs\": {},\n\"gs\": {\"url\": \"x\"}}}", []string{"servers", "gs"},
			`line 3: "gs" is there twice (also on line 2): remove one`, nil},
		{"servers not an object", "{\"servers\": []}", []string{"servers", "gs"}, `line 1: "servers" is not an object`,
			func(err error) bool { return errors.Is(err, ErrNotObject) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := ParseDoc([]byte(tt.in))
			if tt.path != nil {
				if err != nil {
					t.Fatal(err)
				}
				before := string(d.Bytes())
				_, _, err = d.Get(tt.path...)
				if _, serr := d.Set([]byte(entry), tt.path...); serr == nil || serr.Error() != tt.want {
					t.Errorf("Set: got %v, want %s", serr, tt.want)
				}
				if _, derr := d.Delete(tt.path...); derr == nil || derr.Error() != tt.want {
					t.Errorf("Delete: got %v, want %s", derr, tt.want)
				}
				if string(d.Bytes()) != before {
					t.Errorf("the document changed to %s", d.Bytes())
				}
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %s", err, tt.want)
			}
			if tt.check != nil && !tt.check(err) {
				t.Errorf("%v (%T) is not of the expected kind", err, err)
			}
		})
	}
}

// TestDocKeepsWhatItDoesNotTouch: a document Set and Delete never touched comes back byte for byte, with the
// unicode, escapes and comments of its values.
func TestDocKeepsWhatItDoesNotTouch(t *testing.T) {
	t.Parallel()
	in := "\ufeff/* head */ {\"k\\u00e9\": \"l\\\"ine\\n\", /* c */ \"n\": 1.50e1,\n\"a\": [1, 2,],} // tail\n"
	d, err := ParseDoc([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(d.Bytes()); got != in {
		t.Errorf("got %q, want %q", got, in)
	}
	if v, ok, err := d.Get("ké"); !ok || err != nil || string(v) != `"l\"ine\n"` {
		t.Errorf("Get of an escaped name: %s, %v, %v", v, ok, err)
	}
	if !strings.HasPrefix(string(d.Bytes()), "\ufeff") {
		t.Error("the byte order mark is gone")
	}
}

// FuzzDoc: whatever the layout, an untouched document comes back byte for byte; Set adds exactly the member and
// Delete takes exactly it away again (compared as values), and both leave a document that parses.
func FuzzDoc(f *testing.F) {
	for _, seed := range []string{"", "{}", "{\n}", `{"servers": {}}`, "{\n  \"servers\": {\n    \"a\": 1,\n  },\n}\n",
		"\ufeff// c\n{\r\n\t\"servers\": {\"a\": [1,2,], /* b */ \"b\": {}}\r\n}\r\n", `{"servers": 1}`, `{"x": {"gs": 2}}`,
		"{\"servers\": {\"gs\": 1 /* x */, \"b\": 2}}", "{\"servers\": {\n\"gs\": {},\n}}"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d, err := ParseDoc([]byte(in))
		if err != nil {
			return
		}
		if strings.TrimSpace(strings.TrimPrefix(in, "\ufeff")) != "" && string(d.Bytes()) != in {
			t.Fatalf("untouched %q came back as %q", in, d.Bytes())
		}
		before := value(t, d)
		if changed, err := d.Set([]byte(entry), "servers", "gs"); err != nil {
			return // a key twice, or servers not an object
		} else if !changed {
			return // the entry was there already
		}
		after := value(t, reparse(t, d))
		var want any
		_ = json.Unmarshal([]byte(entry), &want)
		expected := map[string]any{} // before, with the entry set
		for k, v := range before {
			expected[k] = v
		}
		servers := map[string]any{}
		if had, ok := before["servers"].(map[string]any); ok {
			for k, v := range had {
				servers[k] = v
			}
		}
		servers["gs"] = want
		expected["servers"] = servers
		if !reflect.DeepEqual(after, expected) {
			t.Fatalf("Set of %q changed more than the entry: %s", in, d.Bytes())
		}
		if removed, err := d.Delete("servers", "gs"); err != nil || !removed {
			t.Fatalf("Delete after Set of %q: %v, %v", in, removed, err)
		}
		delete(servers, "gs")
		if _, had := before["servers"]; !had {
			delete(expected, "servers")
		}
		again := value(t, reparse(t, d))
		if _, had := before["servers"]; !had {
			if s, ok := again["servers"].(map[string]any); ok && len(s) == 0 {
				delete(again, "servers")
			}
		}
		if !reflect.DeepEqual(again, expected) {
			t.Fatalf("Delete after Set of %q: %s", in, d.Bytes())
		}
	})
}

// reparse parses d's bytes again: they must parse.
func reparse(t *testing.T, d *Doc) *Doc {
	t.Helper()
	out, err := ParseDoc(d.Bytes())
	if err != nil {
		t.Fatalf("%q does not parse: %v", d.Bytes(), err)
	}
	return out
}

// value is d as a Go value.
func value(t *testing.T, d *Doc) map[string]any {
	t.Helper()
	c := d.root.Clone()
	c.Standardize()
	var v map[string]any
	if err := json.Unmarshal(c.Pack(), &v); err != nil {
		t.Fatalf("%q: %v", c.Pack(), err)
	}
	return v
}
