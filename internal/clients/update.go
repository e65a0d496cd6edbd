package clients

import (
	"encoding/json"
	"slices"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jsonedit"
)

// addressMembers say where an entry's server is: whichever of them this server's entry has are written, and the
// others removed, as they would point elsewhere (a url beside the httpUrl Gemini CLI reads, say).
var addressMembers = []string{"url", "uri", "httpUrl", "serverUrl", "command", "args"}

// ownKeys are the members this server writes inside an entry's objects (its headers, a stdio entry's environment):
// the object keeps the client's other members (an X-Team header, a variable of the person's).
var ownKeys = []struct {
	object []string
	keys   []string
	stdio  bool // only in an entry that runs a command
}{
	{[]string{"headers"}, []string{"Authorization"}, false},
	{[]string{"http_headers"}, []string{"Authorization"}, false},
	{[]string{"requestOptions", "headers"}, []string{"Authorization"}, false},
	{[]string{"env"}, []string{"GEMINI_SEARCH_CONFIG_DIR", "PATH"}, true},
}

// updated is have, the entry a client's file holds, brought up to want, the entry this server writes now: the
// address members, "type", and this server's keys of the headers and environment become want's; the members want
// has and have lacks are added, each after the member that comes before it in want; every other member stays as
// it is (Codex's tool_timeout_sec and enabled, Zed's settings, Cline's autoApprove, a timeout a person changed in
// Goose's entry). A header want no longer has (no token now) is removed, and an object left empty by that goes
// too. An entry that is not an object is replaced by want.
func updated(have, want json.RawMessage) (json.RawMessage, error) {
	next, err := jsonedit.Parse(have)
	if err != nil {
		return want, nil // not an object: nothing of it to keep
	}
	w, err := jsonedit.Parse(want)
	if err != nil {
		return nil, err
	}
	for _, key := range addressMembers {
		if v, ok := w.Get(key); ok {
			put(&next, w, key, v)
		} else if hasAny(w, addressMembers) {
			next.Delete(key)
		}
	}
	if v, ok := w.Get("type"); ok {
		put(&next, w, "type", v)
	}
	_, stdio := w.Get("command")
	for _, own := range ownKeys {
		if own.stdio && !stdio {
			continue
		}
		for _, key := range own.keys {
			if next, err = setIn(next, w, append(slices.Clone(own.object), key)); err != nil {
				return nil, err
			}
		}
	}
	for _, m := range w {
		if _, ok := next.Get(m.Key); !ok {
			put(&next, w, m.Key, m.Value)
		}
	}
	return json.Marshal(next)
}

// put sets key in obj to value where it stands, or, when obj lacks it, after the member that comes before key in
// want's order (first when none does), so that an entry written anew reads in want's order.
func put(obj *jsonedit.Object, want jsonedit.Object, key string, value json.RawMessage) {
	if _, ok := obj.Get(key); ok {
		obj.Set(key, value)
		return
	}
	at := 0
	for _, m := range want {
		if m.Key == key {
			break
		}
		if i := slices.IndexFunc(*obj, func(o jsonedit.Member) bool { return o.Key == m.Key }); i >= 0 {
			at = i + 1
		}
	}
	*obj = slices.Insert(*obj, at, jsonedit.Member{Key: key, Value: value})
}

// inOrder is data, a JSON object, with its members in the order of keys, those keys lacks after them: an entry
// decoded from TOML or YAML into a map, put back in the order of the file.
func inOrder(data json.RawMessage, keys []string) json.RawMessage {
	obj, err := jsonedit.Parse(data)
	if err != nil {
		return data
	}
	rank := func(m jsonedit.Member) int {
		if i := slices.Index(keys, m.Key); i >= 0 {
			return i
		}
		return len(keys)
	}
	slices.SortStableFunc(obj, func(a, b jsonedit.Member) int { return rank(a) - rank(b) })
	out, err := json.Marshal(obj)
	if err != nil {
		return data
	}
	return out
}

// hasAny reports whether obj has one of keys.
func hasAny(obj jsonedit.Object, keys []string) bool {
	return slices.ContainsFunc(keys, func(k string) bool { _, ok := obj.Get(k); return ok })
}

// setIn is obj with the value at path (objects, then a key) set to want's, or removed when want has none; objects
// on the way are created when missing, and removed when the removal leaves them empty. An object on the way that
// is something else in obj (a client's own use of the name) is left alone.
func setIn(obj, want jsonedit.Object, path []string) (jsonedit.Object, error) {
	key := path[0]
	if len(path) == 1 {
		if v, ok := want.Get(key); ok {
			put(&obj, want, key, v)
		} else {
			obj.Delete(key)
		}
		return obj, nil
	}
	wantInner, wantHas := want.Object(key)
	raw, has := obj.Get(key)
	if !has && !wantHas {
		return obj, nil
	}
	inner := jsonedit.Object{}
	if has {
		var err error
		if inner, err = jsonedit.Parse(raw); err != nil {
			return obj, nil // not an object: the client's, left as it is
		}
	}
	inner, err := setIn(inner, wantInner, path[1:])
	if err != nil {
		return nil, err
	}
	if len(inner) == 0 && !wantHas {
		obj.Delete(key)
		return obj, nil
	}
	data, err := json.Marshal(inner)
	if err != nil {
		return nil, err
	}
	put(&obj, want, key, data)
	return obj, nil
}

// setEntry writes next, the updated entry, over have, the one at path. In a JSON file each member that changed is
// set or removed where it stands, so the entry's other members keep their text and comments; a TOML or YAML entry
// is written anew with next's values, in its members' order.
func setEntry(doc document, path []string, have, next json.RawMessage) (bool, error) {
	if d, ok := doc.(*jsonedit.Doc); ok {
		return setMembers(d, path, have, next)
	}
	return doc.Set(next, path...)
}

// setMembers changes the members of the object at path from have to next, one by one, going into objects that are
// objects in both.
func setMembers(d *jsonedit.Doc, path []string, have, next json.RawMessage) (bool, error) {
	h, errH := jsonedit.Parse(have)
	n, errN := jsonedit.Parse(next)
	if errH != nil || errN != nil {
		return d.Set(next, path...)
	}
	changed := false
	for _, m := range h {
		if _, ok := n.Get(m.Key); !ok {
			if _, err := d.Delete(append(slices.Clone(path), m.Key)...); err != nil {
				return false, err
			}
			changed = true
		}
	}
	for _, m := range n {
		old, ok := h.Get(m.Key)
		if ok && jsonedit.Equal(old, m.Value) {
			continue
		}
		at := append(slices.Clone(path), m.Key)
		var c bool
		var err error
		if ok {
			c, err = setMembers(d, at, old, m.Value)
		} else {
			c, err = d.Set(m.Value, at...)
		}
		if err != nil {
			return false, err
		}
		changed = changed || c
	}
	return changed, nil
}
