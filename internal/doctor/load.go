package doctor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
)

// Reload loads the configuration as the servers would, with env as the process environment and dotenv standing in
// for the .env file (app.Source.LoadDotenv).
type Reload func(env config.Env, dotenv []byte) (config.Config, error)

// Load is the configuration to check. cfg and err are the servers' own load of it (app.Source.Load). Values they
// refuse (*config.InvalidError) do not stop doctor: each becomes a failed check naming the variable and where its
// value came from, the .env file or the process environment, and the configuration is loaded again without them
// (reload), with their defaults, so that the rest of the checklist still runs. Any other error is returned.
func Load(env config.Env, cfg config.Config, err error, reload Reload) (config.Config, []checklist.Check, error) {
	invalid, ok := invalidValues(err)
	if err == nil || !ok {
		return cfg, nil, err
	}
	dir, err := dotenvDir(env, reload)
	if err != nil {
		return config.Config{}, nil, err
	}
	path := config.EnvPath(dir)
	data, _, err := config.ReadDotenv(path)
	if err != nil {
		return config.Config{}, nil, err
	}

	hide, drop := map[string]bool{}, map[string]bool{} // left out of the environment, of the file
	var checks []checklist.Check
	for first := true; ; first = false {
		progress := false
		for _, e := range invalid {
			inEnv := setIn(env, e.Var) && !hide[e.Var]
			switch {
			case inEnv && first: // the value in force came from the environment
				hide[e.Var], progress = true, true
				checks = append(checks, invalidCheck(e, "set in the process environment", "unset it or correct it"))
			case drop[e.Var]:
			case inEnv: // reload checks the file's value too, though the environment's is the one in force: leave it out
				drop[e.Var], progress = true, true
			default:
				drop[e.Var], progress = true, true
				checks = append(checks, invalidCheck(e, "in "+path, "correct it there"))
			}
		}
		if !progress {
			return config.Config{}, checks, err
		}
		cfg, err = reload(without(env, hide), config.UpdateDotenv(data, removals(drop)))
		if invalid, ok = invalidValues(err); err == nil || !ok {
			return cfg, checks, err
		}
	}
}

// invalidCheck is the failed check of a refused value.
func invalidCheck(e *config.InvalidError, where, fix string) checklist.Check {
	instead := "without it"
	for _, v := range config.EnvVars() {
		if v.Name == e.Var && v.Default != "" {
			instead = "with its default, " + v.Default
		}
	}
	return checklist.Check{Name: "Config", Detail: fmt.Sprintf("invalid %s=%q %s: %s\nfix: %s; the checks below go on %s",
		e.Var, e.Value, where, e.Reason, fix, instead)}
}

// invalidValues returns the *config.InvalidErrors err is made of, and whether it holds nothing else.
func invalidValues(err error) ([]*config.InvalidError, bool) {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var all []*config.InvalidError
		for _, err := range joined.Unwrap() {
			some, ok := invalidValues(err)
			if !ok {
				return nil, false
			}
			all = append(all, some...)
		}
		return all, len(all) > 0
	}
	var e *config.InvalidError
	if errors.As(err, &e) {
		return []*config.InvalidError{e}, true
	}
	return nil, false
}

// dotenvDir is the folder whose .env file env's configuration reads: reload with nothing of the environment but
// the variable that chooses that folder, and no file, finds it.
func dotenvDir(env config.Env, reload Reload) (string, error) {
	only := env
	only.Lookup = func(name string) (string, bool) {
		if name != config.DirVar || env.Lookup == nil {
			return "", false
		}
		return env.Lookup(name)
	}
	cfg, err := reload(only, nil)
	return cfg.Dir, err
}

// setIn reports whether the process environment sets name (a blank value counts as unset, as in config.Load).
func setIn(env config.Env, name string) bool {
	if env.Lookup == nil {
		return false
	}
	v, _ := env.Lookup(name)
	return strings.TrimSpace(v) != ""
}

// without is env without the variables in hide.
func without(env config.Env, hide map[string]bool) config.Env {
	lookup := env.Lookup
	env.Lookup = func(name string) (string, bool) {
		if hide[name] || lookup == nil {
			return "", false
		}
		return lookup(name)
	}
	return env
}

// removals are the assignments that remove names from a .env file.
func removals(names map[string]bool) []config.Assignment {
	var a []config.Assignment
	for name := range names {
		a = append(a, config.Assignment{Name: name})
	}
	return a
}
