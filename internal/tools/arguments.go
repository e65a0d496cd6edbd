package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// argumentCheck checks the arguments of a call of a tool against the tool's own input schema before it runs, and
// answers a bad call with an error that says, in words, what is wrong with which argument. mcp-go's built-in
// validation does the same check but reports it as Go structs ("/query: &{Got:0 Want:1}"). The schema is compiled
// on the tool's first call, not at start-up, which does only what every session needs.
//
// The library's own package initialization (every draft's meta-schema compiled, about 12 ms) is paid at each start
// all the same: mcp-go's server package imports it for its optional validation. Only mcp-go dropping it saves that.
type argumentCheck struct {
	tool   string
	schema func() *jsonschema.Schema
}

func newArgumentCheck(tool mcp.Tool) *argumentCheck {
	return &argumentCheck{tool: tool.Name, schema: sync.OnceValue(func() *jsonschema.Schema { return compileInput(tool) })}
}

// Check checks raw, a call's arguments in JSON.
func (c *argumentCheck) Check(raw []byte) *Error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err == nil {
		err = c.schema().Validate(inst)
	}
	if err != nil {
		return invalidArguments(c.tool, err)
	}
	return nil
}

// compileInput compiles tool's input schema; a broken schema is a programming error, caught by every test.
func compileInput(tool mcp.Tool) *jsonschema.Schema {
	raw, err := json.Marshal(tool.InputSchema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: marshal input schema: %v", tool.Name, err))
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", tool.Name, err))
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(tool.Name+".json", doc); err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", tool.Name, err))
	}
	return c.MustCompile(tool.Name + ".json")
}

func invalidArguments(toolName string, err error) *Error {
	var verr *jsonschema.ValidationError
	msg := err.Error()
	if errors.As(err, &verr) {
		msg = strings.Join(describe(verr), "; ")
	}
	return &Error{Code: backend.CodeInvalidArgument, Message: "invalid arguments for " + toolName + ": " + msg}
}

// describe renders each leaf of a validation error as a sentence naming the argument: the missing arguments first,
// then the wrong ones in the order of their names.
func describe(verr *jsonschema.ValidationError) []string {
	leaves := leavesOf(verr)
	slices.SortStableFunc(leaves, func(a, b *jsonschema.ValidationError) int {
		return slices.Compare(a.InstanceLocation, b.InstanceLocation)
	})
	out := make([]string, len(leaves))
	for i, leaf := range leaves {
		out[i] = sentence(leaf)
	}
	return out
}

// leavesOf lists the errors at the tips of verr's tree of causes.
func leavesOf(verr *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(verr.Causes) == 0 {
		return []*jsonschema.ValidationError{verr}
	}
	var out []*jsonschema.ValidationError
	for _, c := range verr.Causes {
		out = append(out, leavesOf(c)...)
	}
	return out
}

// sentence says what leaf, an error with no causes, finds wrong.
func sentence(leaf *jsonschema.ValidationError) string {
	name := strings.Join(leaf.InstanceLocation, ".")
	if name == "" {
		name = "the arguments"
	}
	switch k := leaf.ErrorKind.(type) {
	case *kind.Required:
		if len(k.Missing) == 1 {
			return k.Missing[0] + " is required"
		}
		return andList(k.Missing) + " are required"
	case *kind.AdditionalProperties:
		if len(k.Properties) == 1 {
			return "unknown argument " + k.Properties[0]
		}
		return "unknown arguments " + andList(k.Properties)
	case *kind.Type:
		if k.Got == "number" && len(k.Want) == 1 && k.Want[0] == "integer" {
			return name + " must be a whole number"
		}
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = withArticle(w)
		}
		return fmt.Sprintf("%s must be %s, not %s", name, strings.Join(want, " or "), withArticle(k.Got))
	case *kind.MinLength:
		if k.Want == 1 {
			return name + " must not be empty"
		}
		return fmt.Sprintf("%s must be at least %d characters long (got %d)", name, k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("%s must be at most %d characters long (got %d)", name, k.Want, k.Got)
	case *kind.Pattern:
		return fmt.Sprintf("%s %q is not valid: it must match %s", name, k.Got, k.Want)
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = asJSON(w)
		}
		return fmt.Sprintf("%s must be one of %s (got %s)", name, strings.Join(want, ", "), asJSON(k.Got))
	case *kind.Minimum:
		return fmt.Sprintf("%s must be at least %s (got %s)", name, k.Want.RatString(), k.Got.RatString())
	case *kind.Maximum:
		return fmt.Sprintf("%s must be at most %s (got %s)", name, k.Want.RatString(), k.Got.RatString())
	}
	return fmt.Sprintf("%s: %s", name, leaf.Error())
}

// andList joins names as a sentence lists them: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// withArticle puts "a" or "an" before a JSON type's name.
func withArticle(typ string) string {
	if typ != "" && strings.ContainsRune("aeiou", rune(typ[0])) {
		return "an " + typ
	}
	return "a " + typ
}

// asJSON writes an argument's value as it appears in JSON.
func asJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
