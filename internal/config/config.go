// Package config loads the server's settings from the process environment,
// then the .env file in the config directory, then built-in defaults, and
// validates them into a Config value. Nothing here is global: Load takes an
// Env describing the platform and returns a value.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/credential"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
)

// Config is the validated configuration. Durations and counts are already
// parsed; an empty string means "not set" where the field says so.
type Config struct {
	Dir           string            // absolute config dir, holding .env and the Gemini CLI workspace
	Backend       string            // GEMINI_BACKEND: backend.Auto, backend.CLI or backend.API
	GeminiAPIKey  Secret            // GEMINI_API_KEY
	GoogleAPIKey  Secret            // GOOGLE_API_KEY, used when GEMINI_API_KEY is not set
	APIBaseURL    string            // GOOGLE_GEMINI_BASE_URL; "" means Google's endpoint
	APIJSONModels []string          // GEMINI_API_JSON_MODELS: patterns of the models that take a schema with tools
	Aliases       map[string]string // GEMINI_ALIAS_*: alias → model; the model settings are already resolved
	OutputDir     string            // GEMINI_OUTPUT_DIR; "" means only stdio clients may write report files
	// WorkspaceRoots are GEMINI_WORKSPACE_ROOTS, absolute and clean: the folders under which a client other than
	// stdio may hand the agent a folder (ask's workingDirectory); none means no such client may.
	WorkspaceRoots []string
	// PrivateDirs are folders never handed to the agent, nor any folder inside or holding one: the config dir
	// (the .env file with the keys), the user's config, data, state and cache dirs, and on macOS ~/Library.
	// Absolute and clean.
	PrivateDirs       []string
	Model             string        // GEMINI_MODEL; "" lets the Gemini CLI choose
	CorrectionModel   string        // GEMINI_CORRECTION_MODEL; "" lets the Gemini CLI choose
	FallbackModel     string        // GEMINI_FALLBACK_MODEL; "" when set to "none"
	FirecrawlAPIKey   Secret        // FIRECRAWL_API_KEY
	FirecrawlAPIURL   string        // FIRECRAWL_API_URL, an absolute http(s) URL or ""
	SearchTimeout     time.Duration // GEMINI_SEARCH_TIMEOUT
	DeepSearchTimeout time.Duration // GEMINI_DEEP_SEARCH_TIMEOUT
	AskTimeout        time.Duration // GEMINI_ASK_TIMEOUT
	// Google's Deep Research agent, deep_search's engine google.
	DeepResearchEngine   string        // GEMINI_DEEP_RESEARCH_ENGINE: deep_search's default engine, rounds or google
	DeepResearchAgent    string        // GEMINI_DEEP_RESEARCH_AGENT
	DeepResearchMaxAgent string        // GEMINI_DEEP_RESEARCH_MAX_AGENT
	DeepResearchTimeout  time.Duration // GEMINI_DEEP_RESEARCH_TIMEOUT
	DeepResearchPlan     string        // GEMINI_DEEP_RESEARCH_PLAN: auto, confirm or off
	// Prompts replace built-in prompt templates, by template name (prompts.Names): the files of the config dir's
	// prompts folder, and GEMINI_SYSTEM_PROMPT for the research template.
	Prompts              map[string]string
	Debug                bool          // DEBUG
	Notify               bool          // GEMINI_NOTIFY
	NotifyAfter          time.Duration // GEMINI_NOTIFY_AFTER
	Host                 string        // MCP_SERVER_HOST
	Port                 int           // MCP_SERVER_PORT
	ProgressLogInterval  time.Duration // PROGRESS_LOG_INTERVAL
	JSONMaxRetries       int           // JSON_MAX_RETRIES
	MaxIterations        int           // GEMINI_CLI_MAX_ITERATIONS
	MaxConcurrent        int           // GEMINI_MAX_CONCURRENT
	QueueTimeout         time.Duration // GEMINI_QUEUE_TIMEOUT; 0 means wait as long as it takes
	DeepSearchMaxRounds  int           // DEEP_SEARCH_MAX_ROUNDS
	MaxResponseChars     int           // GEMINI_MAX_RESPONSE_CHARS
	WarmWorkers          int           // GEMINI_WARM_WORKERS; 0 means none
	WarmIdle             time.Duration // GEMINI_WARM_IDLE
	CacheTTL             time.Duration // GEMINI_CACHE_TTL; 0 means no cache
	DailyRequestLimit    int           // GEMINI_DAILY_REQUEST_LIMIT; 0 means none
	MonthlyGroundedLimit int           // GEMINI_MONTHLY_GROUNDED_LIMIT; 0 means none
	CallWait             time.Duration // GEMINI_CALL_WAIT: how long a research call waits for its research
	RunsDir              string        // where CLI runs in progress are recorded; "" when there is no state dir (runsDir)
	CLIPath              string        // GEMINI_CLI_PATH; "" means look up gemini on PATH, then npx when CLINpx
	CLINpx               bool          // GEMINI_CLI_NPX: fetch the CLI with npx when none is installed
	AuthToken            Secret        // MCP_AUTH_TOKEN; "" means no token is required

	// The research library (internal/library): its database, and what it keeps (its retention).
	LibraryPath       string        // library.db in the data dir; "" when there is no data dir: no library (libraryPath)
	LibraryMaxReports int           // GEMINI_LIBRARY_MAX_REPORTS (or GEMINI_HISTORY_MAX); 0 keeps no report
	LibraryMaxAge     time.Duration // GEMINI_LIBRARY_MAX_DAYS
	LibraryMaxBytes   int64         // GEMINI_LIBRARY_MAX_MB
	// HistoryDir is the folder where releases before the library kept their reports, one file each, in the cache
	// dir: the library imports them once. "" when there is no cache dir (historyDir).
	HistoryDir string

	// Overridden holds the names of the variables whose value came from the
	// process environment or a command-line flag rather than the .env file or
	// a default.
	Overridden map[string]bool
	// SetBy names the command-line flag ("--port") of each Overridden variable
	// that a flag set (SetByFlag); the others came from the environment.
	SetBy map[string]string

	// shown holds each variable's value in force as people may see it (Shown).
	shown map[string]string
	// inDotenv holds the names of the variables the .env file sets, including ones Load does not read (InDotenv).
	inDotenv map[string]bool

	// historyMax is GEMINI_HISTORY_MAX, the earlier name of GEMINI_LIBRARY_MAX_REPORTS (applyHistoryMax); nil
	// when it is not set.
	historyMax *int

	// fileSecrets are the values of other credentials in the .env file (GEMINI_API_KEY, say): the Gemini CLI
	// reads that file too, so they can turn up in its error output.
	fileSecrets []Secret
}

// Model aliases, the short names users type for the current models, accepted wherever a model is named.
const (
	AliasPro       = "pro"
	AliasFlash     = "flash"
	AliasFlashLite = "flash-lite"
)

// APIKey is the Gemini API key in force and the variable it came from: GEMINI_API_KEY, else GOOGLE_API_KEY.
func (c Config) APIKey() (key Secret, from string) {
	switch {
	case c.GeminiAPIKey != "":
		return c.GeminiAPIKey, "GEMINI_API_KEY"
	case c.GoogleAPIKey != "":
		return c.GoogleAPIKey, "GOOGLE_API_KEY"
	}
	return "", ""
}

// ResolveModel is the model an alias (pro, flash, flash-lite) stands for on the Gemini API (GEMINI_ALIAS_*: the
// API's own -latest names by default); any other name is returned as it is.
func (c Config) ResolveModel(name string) string {
	if m, ok := c.Aliases[name]; ok {
		return m
	}
	return name
}

// CLIModel is the model name the Gemini CLI gets for name: an alias whose GEMINI_ALIAS_* the user set, the model
// it was set to; any other name, an alias too, as it is: the CLI resolves pro, flash and flash-lite itself, to the
// models the account it runs with may use (a Google sign-in is not served the API's -latest names).
func (c Config) CLIModel(name string) string {
	if v := aliasVar(name); v != "" && (c.Overridden[v] || c.inDotenv[v]) {
		return c.Aliases[name]
	}
	return name
}

// FirecrawlEnabled reports whether the research agent gets Firecrawl tools.
func (c Config) FirecrawlEnabled() bool {
	return c.FirecrawlAPIKey != "" || c.FirecrawlAPIURL != ""
}

// FirecrawlMode describes the Firecrawl setup for people, e.g. for `doctor`.
// It never includes the key, nor a password inside the URL.
func (c Config) FirecrawlMode() string {
	switch {
	case c.FirecrawlAPIURL != "":
		shown := c.FirecrawlAPIURL
		if u, err := url.Parse(shown); err == nil {
			shown = u.Redacted()
		}
		return "self-hosted (" + shown + ")"
	case c.FirecrawlAPIKey != "":
		return "cloud (API key)"
	default:
		return "off"
	}
}

// CLIEnv returns the KEY=VALUE entries the Gemini CLI process needs from the
// config: the Firecrawl variables, which the CLI expands into the firecrawl
// server entry of settings.json so that no secret is written to disk, and the
// Gemini API key in force, as GEMINI_API_KEY, and the API endpoint when it is not Google's.
func (c Config) CLIEnv() []string {
	var env []string
	if c.FirecrawlAPIKey != "" {
		env = append(env, "FIRECRAWL_API_KEY="+c.FirecrawlAPIKey.Reveal())
	}
	if c.FirecrawlAPIURL != "" {
		env = append(env, "FIRECRAWL_API_URL="+c.FirecrawlAPIURL)
	}
	if key, _ := c.APIKey(); key != "" {
		env = append(env, "GEMINI_API_KEY="+key.Reveal())
	}
	if c.APIBaseURL != "" {
		env = append(env, "GOOGLE_GEMINI_BASE_URL="+c.APIBaseURL)
	}
	return env
}

// Secrets returns the non-empty secret values, for masking them in output
// that was not produced by this program (the Gemini CLI's stderr, say).
func (c Config) Secrets() []string {
	var s []string
	for _, v := range append([]Secret{c.FirecrawlAPIKey, c.AuthToken, c.GeminiAPIKey, c.GoogleAPIKey}, c.fileSecrets...) {
		if v != "" {
			s = append(s, v.Reveal())
		}
	}
	return s
}

// SetByFlag records that flag, given on the command line, set the variable name to value: it overrides the
// environment and the .env file. The caller has stored the value in c.
func (c *Config) SetByFlag(name, flag, value string) {
	if c.Overridden == nil {
		c.Overridden = map[string]bool{}
	}
	if c.SetBy == nil {
		c.SetBy = map[string]string{}
	}
	if c.shown == nil {
		c.shown = map[string]string{}
	}
	c.Overridden[name] = true
	c.SetBy[name] = flag
	c.shown[name] = value
}

// InDotenv reports whether the .env file sets the variable name, one the server does not read included (the
// Gemini CLI reads GEMINI_API_KEY there, say).
func (c Config) InDotenv(name string) bool { return c.inDotenv[name] }

// Shown is the value in force for the variable name as people may see it: a credential shows as ••••abcd, an
// unset variable as "".
func (c Config) Shown(name string) string { return c.shown[name] }

// Addr is the MCP HTTP server's listen address, host:port.
func (c Config) Addr() string {
	return net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
}

// PromptsDir is the folder in dir whose files replace the built-in prompts.
func PromptsDir(dir string) string { return filepath.Join(dir, "prompts") }

// EnvPath returns the path of the .env file in dir.
func EnvPath(dir string) string {
	return filepath.Join(dir, ".env")
}

// InvalidError reports a variable whose value cannot be used. Value is
// "[redacted]" for secrets.
type InvalidError struct {
	Var, Value, Reason string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("invalid %s=%q: %s", e.Var, e.Value, e.Reason)
}

// Load builds the Config: each variable comes from the process environment,
// else from <dir>/.env, else from its default, and is then validated. An
// empty or blank value counts as unset. A missing .env file is fine; an
// unreadable or malformed one is an error naming the file. Invalid values give
// an error for each, each an *InvalidError (use errors.As).
//
// Load reads files but creates none.
func Load(e Env) (Config, error) {
	dir, err := configDir(e)
	if err != nil {
		return Config{}, err
	}
	_, file, err := ReadDotenv(EnvPath(dir))
	if err != nil {
		return Config{}, err
	}
	return load(e, dir, file, false)
}

// LoadWithDotenv is Load with data standing in for the contents of the .env file: the Config the program would
// run with once data is written there. It reads no .env file (the prompts folder it reads as Load does). It is stricter than Load: every value data holds must be
// valid, even one that the process environment overrides today, since the file outlives this environment.
func LoadWithDotenv(e Env, data []byte) (Config, error) {
	dir, err := configDir(e)
	if err != nil {
		return Config{}, err
	}
	file, err := parseDotenv(bytes.NewReader(data))
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", EnvPath(dir), err)
	}
	return load(e, dir, file, true)
}

func configDir(e Env) (string, error) {
	dir := defaultDir(e)
	if dir == "" {
		return "", fmt.Errorf("find config dir: home directory unknown; set %s", DirVar)
	}
	return dir, nil
}

// load builds the Config from the process environment, then file (the .env variables), then the defaults. With
// strict, a value of file that the environment overrides must be valid too.
func load(e Env, dir string, file map[string]string, strict bool) (Config, error) {
	c := Config{Dir: dir, LibraryPath: libraryPath(e), HistoryDir: historyDir(e), RunsDir: runsDir(e),
		PrivateDirs: privateDirs(e, dir), Overridden: make(map[string]bool), shown: make(map[string]string),
		inDotenv: make(map[string]bool)}
	if _, ok := e.lookup(DirVar); ok {
		c.Overridden[DirVar] = true
	}
	for name, value := range file {
		value = strings.TrimSpace(value)
		if value != "" {
			c.inDotenv[name] = true
		}
		if credential.Named(name, value) {
			c.fileSecrets = append(c.fileSecrets, Secret(value))
		}
	}
	overrides, err := prompts.Overrides(PromptsDir(dir))
	errs := []error{err}
	c.Prompts = overrides
	if c.Prompts == nil {
		c.Prompts = map[string]string{}
	}
	for _, v := range variables {
		fromFile := strings.TrimSpace(file[v.Name])
		value, fromEnv := e.lookup(v.Name)
		switch {
		case fromEnv:
			c.Overridden[v.Name] = true
			if strict && fromFile != "" {
				if err := v.apply(&Config{}, fromFile); err != nil {
					errs = append(errs, err)
				}
			}
		case fromFile != "":
			value = fromFile
		default:
			value = v.Default
		}
		if value == "" {
			continue
		}
		if err := v.apply(&c, value); err != nil {
			errs = append(errs, err)
		}
		c.shown[v.Name] = v.show(value)
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	c.applyHistoryMax()
	return c, nil
}

// ParseDotenv parses the contents of a .env file: its variables.
func ParseDotenv(data []byte) (map[string]string, error) { return parseDotenv(bytes.NewReader(data)) }

// HeldAsWritten reports whether err, the refusal of the .env file updated, is only invalid values that the file
// old already held as they are in updated: a value the user wrote into the file by hand stays there until they
// change it, and saving other settings does not take it away (nor apply them, while it is there).
func HeldAsWritten(old, updated []byte, err error) bool {
	was, oldErr := ParseDotenv(old)
	now, newErr := ParseDotenv(updated)
	if err == nil || oldErr != nil || newErr != nil {
		return false
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		var inv *InvalidError
		if !errors.As(e, &inv) {
			return false // not a value of the file: the exposure of a non-loopback host, say
		}
		if v, held := was[inv.Var]; !held || v != now[inv.Var] {
			return false
		}
	}
	return true
}

// ReadDotenv reads and parses the .env file at path: its contents and its variables. A missing file is empty; an
// unreadable or malformed one is an error naming the file.
func ReadDotenv(path string) (data []byte, vars map[string]string, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, map[string]string{}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if vars, err = parseDotenv(bytes.NewReader(data)); err != nil {
		return data, nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, vars, nil
}
