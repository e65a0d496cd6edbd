package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jsonedit"
)

// decodeSettings reads settings.json contents as the Gemini CLI does (comments allowed) into a map, numbers kept as
// written; ok is false when they are not a JSON object.
func decodeSettings(data []byte) (settings map[string]any, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(stripComments(data)))
	dec.UseNumber()
	if err := dec.Decode(&settings); err != nil || settings == nil {
		return nil, false
	}
	_, err := dec.Token()
	return settings, errors.Is(err, io.EOF)
}

// FuzzMerge merges the owned entries into an arbitrary settings.json, with Firecrawl and key auth on or off. A file
// that is not a JSON object is refused with an *InvalidSettingsError. Any other file gives a JSON object in which
// every entry of the user's is kept (key order too) but the owned ones, which are the template's; and merging that
// result again changes nothing.
func FuzzMerge(f *testing.F) {
	f.Add(`{"ui":{"theme":"x"},"general":{"maxAttempts":7,"vimMode":true},"tools":{"core":["google_web_search"]},"mcpServers":{"mine":{"command":"x"}}}`, true, false)
	f.Add(`{"security":{"folderTrust":{"enabled":false},"auth":{"selectedType":"gemini-api-key","useExternal":true}}}`, false, false)
	f.Add("{\n  // mine\n  \"general\": {\"maxAttempts\": 3},\n  \"tools\": {\"core\": \"everything\"} /* all */\n}\n", false, true)
	dir := f.TempDir() // holds no settings.json: Check, which merged calls to explain a refusal, finds none
	f.Fuzz(func(t *testing.T, data string, firecrawl, keyAuth bool) {
		o := Options{Firecrawl: firecrawl, KeyAuth: keyAuth}
		want, err := render(o)
		if err != nil {
			t.Fatal(err)
		}
		out, changed, err := merged(dir, []byte(data), want)
		in, isObject := decodeSettings([]byte(data))
		if blank := len(bytes.TrimSpace(stripComments([]byte(data)))) == 0; blank {
			in, isObject = map[string]any{}, true // an empty file is an empty object
		}
		var invalid *InvalidSettingsError
		switch {
		case !isObject && !errors.As(err, &invalid):
			t.Fatalf("not a JSON object: got %v, want an *InvalidSettingsError", err)
		case !isObject:
			return
		case err != nil:
			t.Fatalf("a JSON object was refused: %v", err)
		case !changed && string(out) != data:
			t.Fatalf("unchanged, but the contents differ: %s", out)
		}
		got, ok := decodeSettings(out)
		if !ok {
			t.Fatalf("the result is not a JSON object: %s", out)
		}

		if again, changed, err := merged(dir, out, want); err != nil || changed || !bytes.Equal(again, out) {
			t.Errorf("merging again: changed %v (err %v), want no change to %s", changed, err, out)
		}
		template, _ := decodeSettings(want)
		checkOwned(t, got, in, template, o)
		checkUsersKept(t, got, in)
		if before, after := topKeys([]byte(data)), topKeys(out); !slices.Equal(common(after, before), common(before, after)) {
			t.Errorf("key order %q, want the user's %q", after, before)
		}
	})
}

// ownedKeys are the owned entries of each object that holds one: the rest of each is the user's.
var ownedKeys = map[string]string{"general": "maxAttempts", "ide": "enabled", "tools": "core",
	"mcpServers": firecrawlServer, "security": "auth"}

// checkUsersKept checks that every entry of in that is not owned is in got, unchanged: a top-level one, one inside
// an object that holds an owned entry, and one beside security.auth.selectedType.
func checkUsersKept(t *testing.T, got, in map[string]any) {
	t.Helper()
	for key, v := range in {
		owned, ok := ownedKeys[key]
		if !ok {
			if !reflect.DeepEqual(got[key], v) {
				t.Errorf("%s: got %v, want the user's %v", key, got[key], v)
			}
			continue
		}
		inner, isObject := v.(map[string]any)
		if !isObject {
			continue // not an object: the server may need to replace it with one
		}
		for k, v := range inner {
			if g := lookup(got, key, k); k != owned && !reflect.DeepEqual(g, v) {
				t.Errorf("%s.%s: got %v, want the user's %v", key, k, g, v)
			}
		}
	}
	if auth, ok := lookup(in, "security", "auth").(map[string]any); ok {
		for k, v := range auth {
			if g := lookup(got, "security", "auth", k); k != "selectedType" && !reflect.DeepEqual(g, v) {
				t.Errorf("security.auth.%s: got %v, want the user's %v", k, g, v)
			}
		}
	}
}

// checkOwned checks the owned entries of got against want, the rendered template: its values, its Firecrawl tools
// and server, the auth type while key auth is on (and the user's otherwise), and the user's own tools.
func checkOwned(t *testing.T, got, in, want map[string]any, o Options) {
	t.Helper()
	for _, path := range [][]string{{"general", "maxAttempts"}, {"ide", "enabled"}, {"mcpServers", firecrawlServer}} {
		if g, w := lookup(got, path...), lookup(want, path...); !reflect.DeepEqual(g, w) {
			t.Errorf("%v: got %v, want the template's %v", path, g, w)
		}
	}

	firecrawl, err := firecrawlTools()
	if err != nil {
		t.Fatal(err)
	}
	isFirecrawl := func(name string) bool { return slices.Contains(firecrawl, name) }
	notFirecrawl := func(name string) bool { return !isFirecrawl(name) }
	core, ok := toolList(lookup(got, "tools", "core"))
	if !ok {
		t.Fatalf("tools.core is %v, want a list of names: without one the agent gets every tool", lookup(got, "tools", "core"))
	}
	wantCore, _ := toolList(lookup(want, "tools", "core"))
	if g, w := keep(core, isFirecrawl), keep(wantCore, isFirecrawl); !slices.Equal(g, w) {
		t.Errorf("Firecrawl tools %q, want the template's %q", g, w)
	}
	users, ok := toolList(lookup(in, "tools", "core"))
	if !ok {
		users = wantCore // the user has no list: the template's
	}
	if g, w := keep(core, notFirecrawl), keep(users, notFirecrawl); !slices.Equal(g, w) {
		t.Errorf("other tools %q, want %q", g, w)
	}

	selected, usersSelected := lookup(got, "security", "auth", "selectedType"), lookup(in, "security", "auth", "selectedType")
	switch {
	case o.KeyAuth && selected != keyAuth:
		t.Errorf("auth type %v, want %q", selected, keyAuth)
	case !o.KeyAuth && usersSelected == keyAuth && selected != nil:
		t.Errorf("auth type %v, want the key auth the server set removed", selected)
	case !o.KeyAuth && usersSelected != keyAuth && !reflect.DeepEqual(selected, usersSelected):
		t.Errorf("auth type %v, want the user's %v", selected, usersSelected)
	}
}

// lookup returns the value at path in m, or nil.
func lookup(m map[string]any, path ...string) any {
	var v any = m
	for _, key := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[key]
	}
	return v
}

// toolList reads v as a list of tool names, the way mergeOwned reads tools.core; null is no list.
func toolList(v any) ([]string, bool) {
	if v == nil {
		return nil, false
	}
	data, err := json.Marshal(v)
	var list []string
	return list, err == nil && json.Unmarshal(data, &list) == nil
}

// keep returns the names in list for which f is true.
func keep(list []string, f func(string) bool) []string {
	return slices.DeleteFunc(slices.Clone(list), func(name string) bool { return !f(name) })
}

// topKeys returns the top-level keys of settings.json contents in order.
func topKeys(data []byte) []string {
	o, _ := jsonedit.Parse(stripComments(data))
	var keys []string
	for _, m := range o {
		keys = append(keys, m.Key)
	}
	return keys
}

// common returns the keys of a that are also in b, in a's order.
func common(a, b []string) []string {
	return keep(a, func(key string) bool { return slices.Contains(b, key) })
}
