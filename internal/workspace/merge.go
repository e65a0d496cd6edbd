package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jsonedit"
)

// The entries of settings.json the server owns and regenerates; everything else belongs to the user. They are
// taken from the template, so it stays the one description of what the research agent gets:
//
//	general.maxAttempts
//	ide.enabled
//	tools.core: the Firecrawl tool names (mcp_firecrawl_...), added or removed as Firecrawl is on or off;
//	            the rest of the list is the user's (a missing or malformed list is rebuilt from the template)
//	mcpServers.firecrawl
//	security.auth.selectedType: "gemini-api-key" while Options.KeyAuth is set; once it is not, removed only when
//	            it is still that value (an auth type the user chose stays)
const firecrawlServer = "firecrawl"

// Result is what Regenerate did.
type Result struct {
	Wrote  bool   // the file was (re)written
	Data   []byte // the file's contents after the call
	Backup string // where an unparseable file was moved before a fresh one replaced it; "" otherwise
}

// InvalidSettingsError reports a settings.json that is not a JSON object; Regenerate leaves such a file alone.
type InvalidSettingsError struct {
	Path string
	Err  error // from Check: "<path>:<line>:<col>: invalid JSON: ..."
}

func (e *InvalidSettingsError) Error() string { return e.Err.Error() }
func (e *InvalidSettingsError) Unwrap() error { return e.Err }

// Regenerate creates dir (mode 0700) and its .gemini folder when missing, and brings the entries the server owns
// in dir's settings.json in line with o, keeping every other entry as the user left it (key order included). A
// missing file is written from the template. It writes only when something changed, so a file with comments keeps
// them until an owned entry has to change.
//
// A file that is not a JSON object is left alone with an *InvalidSettingsError, unless replaceInvalid is set:
// then it is moved to settings.json.bak and a fresh one is written from the template.
func Regenerate(dir string, o Options, replaceInvalid bool) (Result, error) {
	path := SettingsPath(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Result{}, pathError("create config dir", dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Result{}, pathError("create", filepath.Dir(path), err)
	}
	want, err := render(o)
	if err != nil {
		return Result{}, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := writeNew(path, want); err != nil {
			return Result{}, pathError("write", path, err)
		}
		return Result{Wrote: true, Data: want}, nil
	}
	if err != nil {
		return Result{}, pathError("read", path, err)
	}

	out, changed, err := merged(dir, data, want)
	var invalid *InvalidSettingsError
	switch {
	case errors.As(err, &invalid) && replaceInvalid:
		// Copy, then replace: a CLI run starting meanwhile always finds a settings.json.
		backup := path + ".bak"
		if err := writeNew(backup, data); err != nil {
			return Result{}, pathError("back up", path, err)
		}
		if err := writeNew(path, want); err != nil {
			return Result{}, pathError("write", path, err)
		}
		return Result{Wrote: true, Data: want, Backup: backup}, nil
	case err != nil:
		return Result{Data: data}, err
	case !changed:
		return Result{Data: data}, nil
	}
	if err := writeNew(path, out); err != nil {
		return Result{}, pathError("write", path, err)
	}
	return Result{Wrote: true, Data: out}, nil
}

// InLine reports whether dir's settings.json exists and its owned entries already are what Regenerate would make
// them for o. It writes nothing. A file that is not a JSON object is an *InvalidSettingsError.
func InLine(dir string, o Options) (bool, error) {
	path := SettingsPath(dir)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, pathError("read", path, err)
	}
	want, err := render(o)
	if err != nil {
		return false, err
	}
	_, changed, err := merged(dir, data, want)
	return err == nil && !changed, err
}

// merged is data (dir's settings.json) with the owned entries of want (the rendered template), and whether that
// changed anything.
func merged(dir string, data, want []byte) (out []byte, changed bool, err error) {
	have, err := jsonedit.Parse(stripComments(data))
	if err != nil {
		invalid := &InvalidSettingsError{Path: SettingsPath(dir), Err: Check(dir)}
		if invalid.Err == nil { // Check accepts what Parse refused (say, trailing data): report Parse's reason
			invalid.Err = fmt.Errorf("%s: %w", SettingsPath(dir), err)
		}
		return nil, false, invalid
	}
	before, err := have.MarshalJSON()
	if err != nil {
		return nil, false, err
	}
	if err := mergeOwned(&have, want); err != nil {
		return nil, false, err
	}
	after, err := have.MarshalJSON()
	if err != nil {
		return nil, false, err
	}
	if bytes.Equal(before, after) {
		return data, false, nil
	}
	out, err = have.Format()
	return out, true, err
}

// ownValue sets object.key in have to its value in want, the rendered template.
func ownValue(have *jsonedit.Object, want jsonedit.Object, object, key string) error {
	wantObject, _ := want.Object(object)
	v, found := wantObject.Get(key)
	if !found {
		return nil
	}
	o, ok := have.Object(object)
	if !ok {
		o = jsonedit.Object{}
	}
	o.Set(key, v)
	return setObject(have, object, o)
}

// mergeOwned copies the owned entries of the rendered template into have.
func mergeOwned(have *jsonedit.Object, rendered []byte) error {
	want, err := jsonedit.Parse(rendered)
	if err != nil {
		return fmt.Errorf("rendered settings: %w", err)
	}

	for _, entry := range [][2]string{{"general", "maxAttempts"}, {"ide", "enabled"}} {
		if err := ownValue(have, want, entry[0], entry[1]); err != nil {
			return err
		}
	}

	wantTools, _ := want.Object("tools")
	var wantCore []string
	if v, found := wantTools.Get("core"); found {
		if err := json.Unmarshal(v, &wantCore); err != nil {
			return fmt.Errorf("rendered settings: tools.core: %w", err)
		}
	}
	tools, ok := have.Object("tools")
	if !ok {
		tools = jsonedit.Object{}
	}
	var core []string
	if v, found := tools.Get("core"); !found || json.Unmarshal(v, &core) != nil || core == nil {
		core = wantCore // no list (null is none), or not a list of names: without one the agent would get every tool
	} else {
		owned, err := firecrawlTools()
		if err != nil {
			return err
		}
		core = slices.DeleteFunc(core, func(name string) bool { return slices.Contains(owned, name) })
		for _, name := range wantCore {
			if slices.Contains(owned, name) {
				core = append(core, name)
			}
		}
	}
	if err := tools.SetValue("core", core); err != nil {
		return err
	}
	if err := setObject(have, "tools", tools); err != nil {
		return err
	}

	wantServers, _ := want.Object("mcpServers")
	firecrawl, on := wantServers.Get(firecrawlServer)
	servers, ok := have.Object("mcpServers")
	switch {
	case on && ok:
		servers.Set(firecrawlServer, firecrawl)
		if err := setObject(have, "mcpServers", servers); err != nil {
			return err
		}
	case on:
		if err := setObject(have, "mcpServers", jsonedit.Object{{Key: firecrawlServer, Value: firecrawl}}); err != nil {
			return err
		}
	case ok && servers.Delete(firecrawlServer) && len(servers) == 0:
		have.Delete("mcpServers")
	case ok:
		if err := setObject(have, "mcpServers", servers); err != nil {
			return err
		}
	}

	wantSecurity, _ := want.Object("security")
	wantAuth, _ := wantSecurity.Object("auth")
	selected, on := wantAuth.Get("selectedType")
	return mergeAuth(have, selected, on)
}

// mergeAuth sets security.auth.selectedType to selected when on, and otherwise removes it if it is the key auth
// this package sets, with the objects that held nothing else.
func mergeAuth(have *jsonedit.Object, selected []byte, on bool) error {
	security, hasSecurity := have.Object("security")
	auth, hasAuth := security.Object("auth")
	if !on {
		var current string
		if v, found := auth.Get("selectedType"); !found || json.Unmarshal(v, &current) != nil || current != keyAuth {
			return nil // not ours to remove
		}
		auth.Delete("selectedType")
		if len(auth) == 0 {
			security.Delete("auth")
		} else if err := setObject(&security, "auth", auth); err != nil {
			return err
		}
		if len(security) == 0 {
			have.Delete("security")
			return nil
		}
		return setObject(have, "security", security)
	}
	if !hasSecurity {
		security = jsonedit.Object{} // missing, or not an object: the CLI needs one
	}
	if !hasAuth {
		auth = jsonedit.Object{}
	}
	auth.Set("selectedType", selected)
	if err := setObject(&security, "auth", auth); err != nil {
		return err
	}
	return setObject(have, "security", security)
}

func setObject(o *jsonedit.Object, key string, v jsonedit.Object) error {
	data, err := v.MarshalJSON()
	if err != nil {
		return err
	}
	o.Set(key, data)
	return nil
}

// firecrawlTools returns the tools.core names that only the Firecrawl template adds.
func firecrawlTools() ([]string, error) {
	core := func(o Options) ([]string, error) {
		data, err := render(o)
		if err != nil {
			return nil, err
		}
		var s struct {
			Tools struct{ Core []string } `json:"tools"`
		}
		err = json.Unmarshal(data, &s)
		return s.Tools.Core, err
	}
	with, err := core(Options{Firecrawl: true})
	if err != nil {
		return nil, err
	}
	without, err := core(Options{})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(with, func(name string) bool { return slices.Contains(without, name) }), nil
}
