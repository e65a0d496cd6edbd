package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
)

// VarDoc documents one configuration variable.
type VarDoc struct {
	Name        string
	Default     string // "" when the variable has no default
	Description string
	Secret      bool // the value is a credential: mask it, never show it

	// The settings page shows the variables that have a Label, in this table's order.
	Label string // the field's name, "Firecrawl API key"
	Help  string // one line under the field, with the limits the value must keep
	Input string // the HTML input type: text, password, url or number; "select" offers Options
	// Options are the values a "select" field offers; the variable accepts nothing else.
	Options []string
}

// EnvVars returns every variable Load reads, in a stable order. It leaves out
// GEMINI_SEARCH_CONFIG_DIR (DirVar), which chooses where the .env file is.
func EnvVars() []VarDoc {
	docs := make([]VarDoc, len(variables))
	for i, v := range variables {
		docs[i] = v.VarDoc
	}
	return docs
}

// variable ties a VarDoc to the code that stores its value in a Config.
type variable struct {
	VarDoc
	// set parses a trimmed, non-empty value into c. Its error is the reason
	// the value is wrong, phrased to follow `invalid NAME="value": `.
	set func(c *Config, value string) error
}

// show is value as people may see it.
func (v variable) show(value string) string {
	if v.Secret {
		return Secret(value).Last4()
	}
	return value
}

// apply stores value in c, or returns an *InvalidError naming the variable (with a secret's value redacted).
func (v variable) apply(c *Config, value string) error {
	if err := v.set(c, value); err != nil {
		shown := value
		if v.Secret {
			shown = redacted
		}
		return &InvalidError{Var: v.Name, Value: shown, Reason: err.Error()}
	}
	return nil
}

// variables is the one list of configuration variables: what Load reads, .env.example and the README document,
// and the settings page shows, in this order.
var variables = []variable{
	{VarDoc{Name: "GEMINI_BACKEND", Label: "Backend", Input: "select", Options: []string{backend.Auto, backend.CLI, backend.API},
		Help:    "auto: the Gemini CLI when it is installed and signed in, else the Gemini API with the key below.",
		Default: backend.Auto, Description: "What runs the research: cli (the Gemini CLI agent), api (the Gemini API " +
			"with Google Search grounding; needs GEMINI_API_KEY) or auto (the CLI when it is installed and signed in, " +
			"else the API; a CLI run refused for its account, its sign-in or a daily quota is run again on the API " +
			"when a key is set)."},
		func(c *Config, v string) error {
			v = strings.ToLower(v)
			if !slices.Contains([]string{backend.Auto, backend.CLI, backend.API}, v) {
				return errors.New("must be auto, cli or api")
			}
			c.Backend = v
			return nil
		}},
	{VarDoc{Name: "GEMINI_API_KEY", Label: "Gemini API key", Input: "password",
		Help:   "From aistudio.google.com/apikey. Leave empty to keep the current key.",
		Secret: true, Description: "Gemini API key (aistudio.google.com/apikey) for the API backend; the Gemini " +
			"CLI uses it too when it has no login of its own."},
		func(c *Config, v string) (err error) { c.GeminiAPIKey, err = secret(v); return err }},
	{VarDoc{Name: "GOOGLE_API_KEY", Secret: true, Description: "Used as the Gemini API key when GEMINI_API_KEY " +
		"is not set."},
		func(c *Config, v string) (err error) { c.GoogleAPIKey, err = secret(v); return err }},
	{VarDoc{Name: "FIRECRAWL_API_KEY", Label: "Firecrawl API key", Input: "password",
		Help:   "From firecrawl.dev. Leave empty to keep the current key.",
		Secret: true, Description: "Firecrawl cloud API key (firecrawl.dev). " +
			"With this or FIRECRAWL_API_URL set, the research agent can also scrape, search and map with Firecrawl."},
		func(c *Config, v string) (err error) { c.FirecrawlAPIKey, err = secret(v); return err }},
	{VarDoc{Name: "FIRECRAWL_API_URL", Label: "Firecrawl API URL", Input: "url",
		Help: "A self-hosted Firecrawl, e.g. https://firecrawl.example.com. Empty: the cloud API.",
		Description: "URL of a self-hosted Firecrawl instance " +
			"(e.g. https://firecrawl.example.com)."},
		func(c *Config, v string) (err error) { c.FirecrawlAPIURL, err = httpURL(v); return err }},
	{VarDoc{Name: "GEMINI_MODEL", Label: "Gemini model", Input: "text",
		Help: "Model for research, e.g. gemini-2.5-pro, or an alias: pro, flash, flash-lite. Empty: the backend chooses.",
		Description: "Gemini model for research (e.g. gemini-2.5-pro), or one of the aliases pro, flash and " +
			"flash-lite. Empty: the Gemini CLI picks a model itself, and the API backend uses flash."},
		func(c *Config, v string) (err error) { c.Model, err = modelName(v); return err }},
	{VarDoc{Name: "GEMINI_CORRECTION_MODEL", Label: "Correction model", Input: "text",
		Help: "Model that repairs an answer that was not valid JSON.",
		Description: "Model for the call that repairs an answer that was " +
			"not valid JSON (aliases too). Empty: the research model's backend default."},
		func(c *Config, v string) (err error) { c.CorrectionModel, err = modelName(v); return err }},
	{VarDoc{Name: "GEMINI_FALLBACK_MODEL", Label: "Fallback model", Input: "text",
		Help:    "Model to retry with when the quota runs out (aliases too); none turns it off.",
		Default: AliasFlashLite, Description: "Model to retry with when the main model hits a quota or rate " +
			"limit (its own quota pool), or an alias. \"none\" turns the fallback off."},
		func(c *Config, v string) (err error) {
			if strings.EqualFold(v, "none") {
				c.FallbackModel = ""
				return nil
			}
			c.FallbackModel, err = modelName(v)
			return err
		}},
	{VarDoc{Name: "GEMINI_SEARCH_TIMEOUT", Label: "Search timeout (ms)", Input: "number",
		Help:    "Longest time a search may take, all of it, 1000 to 1800000.",
		Default: "300000", Description: "Longest time a search may take, all of it: its wait for a free slot, its " +
			"Gemini CLI runs or Gemini API calls and their JSON corrections, in milliseconds (1000 to 1800000)."},
		func(c *Config, v string) (err error) {
			c.SearchTimeout, err = millis(v, 1000, 1_800_000, "must be a whole number of milliseconds between 1000 and 1800000")
			return err
		}},
	{VarDoc{Name: "GEMINI_DEEP_SEARCH_TIMEOUT", Label: "Deep search timeout (ms)", Input: "number",
		Help:    "Longest time a deep search may take, all its rounds, 1000 to 3600000.",
		Default: "900000", Description: "Longest time a deep_search may take, all of it: its wait for a free slot " +
			"and all its rounds, in milliseconds (1000 to 3600000). When it runs out, the last complete round's report " +
			"comes back marked partial."},
		func(c *Config, v string) (err error) {
			c.DeepSearchTimeout, err = millis(v, 1000, 3_600_000, "must be a whole number of milliseconds between 1000 and 3600000")
			return err
		}},
	{VarDoc{Name: "GEMINI_DEEP_RESEARCH_ENGINE", Label: "Deep search engine", Input: "select",
		Options: []string{backend.EngineRounds, backend.EngineGoogle},
		Help: "rounds: our research and verification rounds. google: Google's Deep Research agent (Gemini API key, " +
			"paid, $2-5 and 3-20 minutes a report).",
		Default: backend.EngineRounds, Description: "The engine of a deep_search that names none: rounds (a research " +
			"round, then verification rounds, on the backend in force) or google (Google's Deep Research agent " +
			"through the Gemini API's Interactions API: needs GEMINI_API_KEY with billing; about $2-5 and 3-20 " +
			"minutes a report)."},
		func(c *Config, v string) error {
			v = strings.ToLower(v)
			if v != backend.EngineRounds && v != backend.EngineGoogle {
				return errors.New("must be rounds or google")
			}
			c.DeepResearchEngine = v
			return nil
		}},
	{VarDoc{Name: "GEMINI_DEEP_RESEARCH_AGENT", Default: backend.DefaultResearchAgent, Description: "The " +
		"Deep Research agent of deep_search's engine google, as the Interactions API names it."},
		func(c *Config, v string) (err error) {
			c.DeepResearchAgent, err = modelName(v)
			return err
		}},
	{VarDoc{Name: "GEMINI_DEEP_RESEARCH_MAX_AGENT", Default: backend.DefaultResearchMaxAgent, Description: "The " +
		"Deep Research agent of deep_search's engine google with depth max: the deepest research, at the highest cost."},
		func(c *Config, v string) (err error) {
			c.DeepResearchMaxAgent, err = modelName(v)
			return err
		}},
	{VarDoc{Name: "GEMINI_DEEP_RESEARCH_PLAN", Default: "auto", Description: "Whether Google's Deep Research agent " +
		"plans first: auto (it proposes a plan, shown to the user for approval where the client supports MCP " +
		"elicitation; elsewhere the research runs on from it, the plan in the report's metadata), confirm (the " +
		"research runs only once the plan is approved: a client that cannot ask gets the plan and a plan_id to " +
		"run it with) or off (no plan)."},
		func(c *Config, v string) error {
			v = strings.ToLower(v)
			if v != "auto" && v != "confirm" && v != "off" {
				return errors.New("must be auto, confirm or off")
			}
			c.DeepResearchPlan = v
			return nil
		}},
	{VarDoc{Name: "GEMINI_DEEP_RESEARCH_TIMEOUT", Default: "3600000", Description: "Longest time a run of Google's " +
		"Deep Research agent is followed, in milliseconds (60000 to 7200000); a run still going then is cancelled."},
		func(c *Config, v string) (err error) {
			c.DeepResearchTimeout, err = millis(v, 60_000, 7_200_000, "must be a whole number of milliseconds between 60000 and 7200000")
			return err
		}},
	{VarDoc{Name: "GEMINI_ASK_TIMEOUT", Default: "600000", Description: "Longest time an ask or structured call " +
		"may take, all of it, in milliseconds (1000 to 3600000)."},
		func(c *Config, v string) (err error) {
			c.AskTimeout, err = millis(v, 1000, 3_600_000, "must be a whole number of milliseconds between 1000 and 3600000")
			return err
		}},
	{VarDoc{Name: "GEMINI_SYSTEM_PROMPT", Description: "Custom prompt template for research runs; it must " +
		"contain {topic} (also: {depth}, {model}, {date}, {max_iterations}). Empty: prompts/research.md in the " +
		"config dir, else the built-in template."},
		func(c *Config, v string) error {
			if err := prompts.Check(prompts.Research, v); err != nil {
				return err
			}
			c.Prompts[prompts.Research] = v
			return nil
		}},
	{VarDoc{Name: "GEMINI_NOTIFY", Label: "Notifications", Input: "select", Options: []string{"true", "false"},
		Help:    "A desktop notification when a long search finishes or fails (the tray).",
		Default: "true", Description: "The tray's desktop notification when a search that ran longer than " +
			"GEMINI_NOTIFY_AFTER finishes or fails (true or false)."},
		func(c *Config, v string) (err error) { c.Notify, err = parseBool(v); return err }},
	{VarDoc{Name: "GEMINI_NOTIFY_AFTER", Default: "30000", Description: "How long a search must have run for the " +
		"tray to notify its end, in milliseconds (0 to 86400000)."},
		func(c *Config, v string) (err error) {
			c.NotifyAfter, err = millis(v, 0, 86_400_000, "must be a whole number of milliseconds between 0 and 86400000")
			return err
		}},
	{VarDoc{Name: "DEBUG", Default: "false", Description: "Verbose logging (true or false)."},
		func(c *Config, v string) (err error) { c.Debug, err = parseBool(v); return err }},
	{VarDoc{Name: "MCP_SERVER_HOST", Default: "127.0.0.1", Description: "Address the MCP HTTP server listens on."},
		func(c *Config, v string) error { c.Host = v; return nil }},
	{VarDoc{Name: "MCP_SERVER_PORT", Label: "Port", Input: "number",
		Help:    "Port of the MCP server and of these pages; clients must use the new URL.",
		Default: "3000", Description: "Port the MCP HTTP server listens on."},
		func(c *Config, v string) (err error) {
			c.Port, err = intBetween(v, 1, 65535, "must be a port number between 1 and 65535")
			return err
		}},
	{VarDoc{Name: "PROGRESS_LOG_INTERVAL", Default: "30000", Description: "How often to log the progress of a " +
		"running search, in milliseconds (at least 1000)."},
		func(c *Config, v string) (err error) {
			c.ProgressLogInterval, err = millis(v, 1000, math.MaxInt64/int64(time.Millisecond),
				"must be a whole number of milliseconds, at least 1000")
			return err
		}},
	{VarDoc{Name: "JSON_MAX_RETRIES", Default: "3", Description: "How many times to retry when the Gemini CLI's " +
		"answer is not valid JSON (0 to 10)."},
		func(c *Config, v string) (err error) {
			c.JSONMaxRetries, err = intBetween(v, 0, 10, "must be a whole number between 0 and 10")
			return err
		}},
	{VarDoc{Name: "GEMINI_CLI_MAX_ITERATIONS", Default: "10", Description: "Most search or read steps the " +
		"research agent is asked to take in one run; also caps DEEP_SEARCH_MAX_ROUNDS (1 to 100)."},
		func(c *Config, v string) (err error) {
			c.MaxIterations, err = intBetween(v, 1, 100, "must be a whole number between 1 and 100")
			return err
		}},
	{VarDoc{Name: "GEMINI_MAX_CONCURRENT", Label: "Max concurrent runs", Input: "number",
		Help:    "Gemini CLI processes at once, 1 to 32; more searches wait.",
		Default: "3", Description: "Most Gemini CLI processes running at " +
			"once; further searches wait their turn (1 to 32)."},
		func(c *Config, v string) (err error) {
			c.MaxConcurrent, err = intBetween(v, 1, 32, "must be a whole number between 1 and 32")
			return err
		}},
	{VarDoc{Name: "GEMINI_QUEUE_TIMEOUT", Default: "30000", Description: "Longest time a search waits for a " +
		"free Gemini CLI slot before it fails with QUEUE_TIMEOUT, in milliseconds (0 to 1800000; 0: no limit)."},
		func(c *Config, v string) (err error) {
			c.QueueTimeout, err = millis(v, 0, 1_800_000, "must be a whole number of milliseconds between 0 and 1800000")
			return err
		}},
	{VarDoc{Name: "DEEP_SEARCH_MAX_ROUNDS", Default: "3", Description: "Most rounds of one deep_search: the " +
		"research round plus verification rounds (1 to 10, never above GEMINI_CLI_MAX_ITERATIONS)."},
		func(c *Config, v string) (err error) {
			c.DeepSearchMaxRounds, err = intBetween(v, 1, 10, "must be a whole number between 1 and 10")
			return err
		}},
	{VarDoc{Name: "GEMINI_WARM_WORKERS", Label: "Warm workers", Input: "number",
		Help:    "Gemini CLI processes started ahead of a search, per model, 0 to 32; each holds 200-350 MB.",
		Default: "1", Description: "Gemini CLI processes kept started ahead of " +
			"their prompt, per model in use, so that a search skips the CLI's start (0 to 32; 0: none). Never more in " +
			"all than GEMINI_MAX_CONCURRENT; each holds 200-350 MB while it waits."},
		func(c *Config, v string) (err error) {
			c.WarmWorkers, err = intBetween(v, 0, 32, "must be a whole number between 0 and 32")
			return err
		}},
	{VarDoc{Name: "GEMINI_WARM_IDLE", Default: "600000", Description: "How long the warm Gemini CLI processes " +
		"of a model wait unused before they are stopped, in milliseconds (1000 to 86400000)."},
		func(c *Config, v string) (err error) {
			c.WarmIdle, err = millis(v, 1000, 86_400_000, "must be a whole number of milliseconds between 1000 and 86400000")
			return err
		}},
	{VarDoc{Name: "GEMINI_CACHE_TTL", Default: "900000", Description: "How long a finished report answers an " +
		"identical request (same tool, arguments, model and backend) at once, in milliseconds (0 to 86400000; 0: no " +
		"cache). A call with fresh: true researches again."},
		func(c *Config, v string) (err error) {
			c.CacheTTL, err = millis(v, 0, 86_400_000, "must be a whole number of milliseconds between 0 and 86400000")
			return err
		}},
	{VarDoc{Name: "GEMINI_CALL_WAIT", Default: "45", Description: "How long a research call (search, deep_search, " +
		"ask, structured) waits for its research, in seconds (0 to 600), unless the call says (wait_seconds). Research " +
		"that takes longer goes on: the call answers status running with a research_id, and research_result waits " +
		"again. 45 suits the clients that give up on a call after 60 s."},
		func(c *Config, v string) (err error) {
			c.CallWait, err = seconds(v, 0, 600, "must be a whole number of seconds between 0 and 600")
			return err
		}},
	{VarDoc{Name: "GEMINI_DAILY_REQUEST_LIMIT", Default: "0", Description: "The most requests the research may " +
		"make today (local time), as the usage meter counts them (the Gemini API requests of each call's research " +
		"runs, retries included; a CLI call as one; JSON corrections and failed calls are not counted yet): past it " +
		"a research call is refused with QUOTA_ERROR before the provider would (0 to 1000000; 0: no limit)."},
		func(c *Config, v string) (err error) {
			c.DailyRequestLimit, err = intBetween(v, 0, 1_000_000, "must be a whole number between 0 and 1000000")
			return err
		}},
	{VarDoc{Name: "GEMINI_MONTHLY_GROUNDED_LIMIT", Default: "0", Description: "The most Google searches (search " +
		"queries, which a grounded prompt runs one or more of) the research may run this month (local time), as the " +
		"usage meter counts them: past it a research call is refused with QUOTA_ERROR, before Google's pool of " +
		"grounded prompts runs out and bills (0 to 10000000; 0: no limit)."},
		func(c *Config, v string) (err error) {
			c.MonthlyGroundedLimit, err = intBetween(v, 0, 10_000_000, "must be a whole number between 0 and 10000000")
			return err
		}},
	{VarDoc{Name: "GEMINI_LIBRARY_MAX_REPORTS", Default: "1000", Description: "How many finished reports the " +
		"research library keeps (in the user's data dir), for the tray's Recent research, /status and the clients' " +
		"searches of past research; past it the oldest are dropped, and logged (0 to 1000000; 0: none, and those " +
		"kept are deleted). GEMINI_HISTORY_MAX, its earlier name, is still read when this is not set."},
		func(c *Config, v string) (err error) {
			c.LibraryMaxReports, err = intBetween(v, 0, 1_000_000, "must be a whole number between 0 and 1000000")
			return err
		}},
	{VarDoc{Name: "GEMINI_LIBRARY_MAX_DAYS", Default: "365", Description: "How many days the research library " +
		"keeps a report (and a finished job); older ones are dropped, and logged (1 to 36500)."},
		func(c *Config, v string) error {
			n, err := intBetween(v, 1, 36_500, "must be a whole number of days between 1 and 36500")
			c.LibraryMaxAge = time.Duration(n) * 24 * time.Hour
			return err
		}},
	{VarDoc{Name: "GEMINI_LIBRARY_MAX_MB", Default: "200", Description: "How many megabytes the research " +
		"library's reports (their text, sources and metadata) and cached answers may take together (the database, " +
		"with its search index, takes up to twice that); past it the oldest are dropped, cached answers first, and " +
		"logged (1 to 100000)."},
		func(c *Config, v string) error {
			n, err := intBetween(v, 1, 100_000, "must be a whole number of megabytes between 1 and 100000")
			c.LibraryMaxBytes = int64(n) << 20
			return err
		}},
	{VarDoc{Name: "GEMINI_HISTORY_MAX", Description: "The earlier name of GEMINI_LIBRARY_MAX_REPORTS, read " +
		"when that is not set, so that a .env file of an earlier release keeps its meaning (0 to 1000000)."},
		func(c *Config, v string) error {
			n, err := intBetween(v, 0, 1_000_000, "must be a whole number between 0 and 1000000")
			c.historyMax = &n
			return err
		}},
	{VarDoc{Name: "GEMINI_MAX_RESPONSE_CHARS", Default: "20000", Description: "Longest report returned in one " +
		"piece; a longer one comes back in chunks fetched with fetch_chunk (1000 to 1000000)."},
		func(c *Config, v string) (err error) {
			c.MaxResponseChars, err = intBetween(v, 1000, 1_000_000, "must be a whole number between 1000 and 1000000")
			return err
		}},
	{VarDoc{Name: "GOOGLE_GEMINI_BASE_URL", Description: "Another endpoint for the Gemini API (a proxy, or a test " +
		"server), for both backends. Empty: Google's."},
		func(c *Config, v string) (err error) { c.APIBaseURL, err = httpURL(v); return err }},
	{VarDoc{Name: "GEMINI_API_JSON_MODELS", Default: "gemini-3*,gemini-4*,gemini-*-latest", Description: "Models " +
		"of the Gemini API that take a response JSON schema together with Google Search (Gemini 3 and later): the API " +
		"backend gets a report from them in one request. Any other model is asked in the prompt, and an answer that " +
		"is not valid JSON costs correction requests. Names separated by commas, * standing for any characters; " +
		"none: no model."},
		func(c *Config, v string) (err error) { c.APIJSONModels, err = modelPatterns(v); return err }},
	aliasVariable(AliasPro, "gemini-pro-latest", "advanced reasoning"),
	aliasVariable(AliasFlash, "gemini-flash-latest", "fast and cost-effective"),
	aliasVariable(AliasFlashLite, "gemini-flash-lite-latest", "fastest and cheapest, for simple lookups"),
	{VarDoc{Name: "GEMINI_OUTPUT_DIR", Description: "Folder under which a search over HTTP may write its report " +
		"(the output_file argument). Empty: only stdio clients may ask for a file. An absolute path."},
		func(c *Config, v string) error {
			if !filepath.IsAbs(v) {
				return errors.New("must be an absolute folder path")
			}
			c.OutputDir = filepath.Clean(v)
			return nil
		}},
	{VarDoc{Name: "GEMINI_WORKSPACE_ROOTS", Description: "Folders under which an ask over HTTP may name a " +
		"workingDirectory, a folder whose files the agent reads: absolute paths of existing folders, separated by : " +
		"(; on Windows). Empty: only stdio clients may name one. Even under a root, a hidden folder, and one inside " +
		"or holding the config, data, state or cache dirs, are refused."},
		func(c *Config, v string) (err error) { c.WorkspaceRoots, err = folderList(v); return err }},
	{VarDoc{Name: "GEMINI_CLI_PATH", Description: "Path to the gemini executable. Empty: look up gemini on " +
		"PATH, then, when GEMINI_CLI_NPX is on, fetch it with npx."},
		func(c *Config, v string) error { c.CLIPath = v; return nil }},
	{VarDoc{Name: "GEMINI_CLI_NPX", Label: "Fetch the Gemini CLI with npx", Input: "select",
		Options: []string{"off", "on"},
		Help: "Without an installed CLI: off refuses its searches with the install command; on downloads it at the " +
			"first search (a minute or more).",
		Default: "off", Description: "Without an installed Gemini CLI, fetch it with npx (on) or refuse the CLI's " +
			"searches with CLI_NOT_FOUND and the install command (off). npx's first download takes a minute or more; " +
			"npm install -g @google/gemini-cli installs the CLI once."},
		func(c *Config, v string) (err error) { c.CLINpx, err = onOff(v); return err }},
	{VarDoc{Name: "MCP_AUTH_TOKEN", Secret: true, Description: "Token that clients of the MCP HTTP server must " +
		"send. Empty: no token is required."},
		func(c *Config, v string) (err error) { c.AuthToken, err = secret(v); return err }},
}

// applyHistoryMax puts GEMINI_HISTORY_MAX, the earlier name of GEMINI_LIBRARY_MAX_REPORTS, in force when it is
// set and the new name is not (in the environment or the .env file).
func (c *Config) applyHistoryMax() {
	const name = "GEMINI_LIBRARY_MAX_REPORTS"
	if c.historyMax == nil || c.Overridden[name] || c.inDotenv[name] {
		return
	}
	c.LibraryMaxReports = *c.historyMax
	c.shown[name] = strconv.Itoa(*c.historyMax)
}

// aliasVariable is the variable GEMINI_ALIAS_<ALIAS> that says which model alias stands for.
func aliasVariable(alias, model, what string) variable {
	name := aliasVar(alias)
	return variable{VarDoc{Name: name, Default: model, Description: fmt.Sprintf("The model the alias %s "+
		"stands for (%s) on the Gemini API, in GEMINI_MODEL and the other model settings and in a tool's model "+
		"argument. The default is the API's own name for its newest such model, so that a new generation needs no "+
		"update. The Gemini CLI resolves the alias itself, for its account, unless this is set.", alias, what)},
		func(c *Config, v string) (err error) {
			if c.Aliases == nil {
				c.Aliases = map[string]string{}
			}
			c.Aliases[alias], err = modelName(v)
			return err
		}}
}

// aliasVar is the variable that says which model alias stands for; "" for a name that is no alias.
func aliasVar(alias string) string {
	switch alias {
	case AliasPro, AliasFlash, AliasFlashLite:
		return "GEMINI_ALIAS_" + strings.ToUpper(strings.ReplaceAll(alias, "-", "_"))
	}
	return ""
}

// folderList parses a list of folders separated by os.PathListSeparator: each must be an absolute path to an
// existing folder. Blank entries are skipped; the folders come back clean, without repeats.
func folderList(v string) ([]string, error) {
	var dirs []string
	var problems []string
	for _, d := range filepath.SplitList(v) {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			problems = append(problems, fmt.Sprintf("%q is not an absolute path", d))
			continue
		}
		d = filepath.Clean(d)
		info, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, fmt.Sprintf("%q does not exist", d))
		case err != nil:
			problems = append(problems, fmt.Sprintf("%q cannot be read: %v", d, errors.Unwrap(err)))
		case !info.IsDir():
			problems = append(problems, fmt.Sprintf("%q is not a folder", d))
		case !slices.Contains(dirs, d):
			dirs = append(dirs, d)
		}
	}
	if problems != nil {
		return nil, fmt.Errorf("%s: give absolute paths of existing folders, separated by %q",
			strings.Join(problems, ", "), os.PathListSeparator)
	}
	return dirs, nil
}

func intBetween(v string, lo, hi int, reason string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, errors.New(reason)
	}
	return n, nil
}

// seconds parses a count of seconds.
func seconds(v string, lo, hi int, reason string) (time.Duration, error) {
	n, err := intBetween(v, lo, hi, reason)
	return time.Duration(n) * time.Second, err
}

// millis parses a count of milliseconds.
func millis(v string, lo, hi int64, reason string) (time.Duration, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, errors.New(reason)
	}
	return time.Duration(n) * time.Millisecond, nil
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, errors.New("must be true or false (or 1/0, yes/no, on/off)")
}

// onOff parses a switch that the settings page offers as off and on.
func onOff(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, errors.New("must be on or off")
}

// modelName accepts any model name the Gemini CLI might know, but refuses
// blanks and a leading "-", which would read as a command-line flag.
func modelName(v string) (string, error) {
	if !backend.ValidModel(v) {
		return "", errors.New("must be a model name like gemini-2.5-pro: letters and digits, with single . _ : / - " +
			"between them, at most 100 characters")
	}
	return v, nil
}

// modelPatterns parses a list of model names separated by commas, where * stands for any characters; "none" is
// the empty list.
func modelPatterns(v string) ([]string, error) {
	if strings.EqualFold(strings.TrimSpace(v), "none") {
		return nil, nil
	}
	var patterns []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !backend.ValidModel(strings.ReplaceAll(p, "*", "x")) {
			return nil, fmt.Errorf("%q is not a model name: letters and digits, with single . _ : / - between "+
				"them and * for any characters", p)
		}
		patterns = append(patterns, p)
	}
	return patterns, nil
}

func httpURL(v string) (string, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("must be an absolute http or https URL like https://example.com")
	}
	return v, nil
}

// secret refuses blanks and control characters inside a credential: they are
// almost always a copy-and-paste slip, and they break HTTP headers.
func secret(v string) (Secret, error) {
	if strings.ContainsFunc(v, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return "", errors.New("must not contain spaces or control characters")
	}
	return Secret(v), nil
}
