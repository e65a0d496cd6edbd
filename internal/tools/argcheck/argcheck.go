// Package argcheck checks JSON against JSON Schemas and says in words what is wrong: a tool call's arguments against
// the tool's input schema, and a structured answer against the schema its caller gave.
package argcheck

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
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Arguments checks the arguments of a call of a tool against the tool's own input schema before it runs, and says in
// words what is wrong with which argument. mcp-go's built-in
// validation does the same check but reports it as Go structs ("/query: &{Got:0 Want:1}"). The schema is compiled
// on the tool's first call, not at start-up, which does only what every session needs.
//
// The library's own package initialization (every draft's meta-schema compiled, about 12 ms) is paid at each start
// all the same: mcp-go's server package imports it for its optional validation. Only mcp-go dropping it saves that.
type Arguments struct {
	schema func() *jsonschema.Schema
}

// ForTool checks the arguments of tool.
func ForTool(tool mcp.Tool) *Arguments {
	return &Arguments{schema: sync.OnceValue(func() *jsonschema.Schema { return compileInput(tool) })}
}

// Check checks raw, a call's arguments in JSON. Its error is sentences, one for each argument wrong.
func (c *Arguments) Check(raw []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err == nil {
		err = c.schema().Validate(inst)
	}
	var verr *jsonschema.ValidationError
	if errors.As(err, &verr) {
		return errors.New(strings.Join(describe(verr), "; "))
	}
	return err
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

// MaxSchemaBytes bounds a caller's JSON Schema, encoded.
const MaxSchemaBytes = 64 << 10

// CallerSchema checks a caller's schema and compiles it: at most MaxSchemaBytes, valid JSON Schema, with an object
// at its root, and no reference to another document (which would read local files or the network). It returns the
// schema indented, and the check of an answer against it, which says in words where the answer is wrong and why.
// Its error follows "schema ".
func CallerSchema(raw json.RawMessage) (pretty string, validate func(answer any) error, err error) {
	schema, err := compileCaller(raw)
	if err != nil {
		return "", nil, err
	}
	var b bytes.Buffer
	_ = json.Indent(&b, raw, "", "  ") // valid JSON: it was just parsed
	validate = func(answer any) error {
		var verr *jsonschema.ValidationError
		if err := schema.Validate(answer); errors.As(err, &verr) {
			return errors.New(strings.Join(describeAnswer(verr), "; "))
		} else if err != nil {
			return err
		}
		return nil
	}
	return b.String(), validate, nil
}

// compileCaller compiles raw, a caller's schema.
func compileCaller(raw json.RawMessage) (*jsonschema.Schema, error) {
	if len(raw) > MaxSchemaBytes {
		return nil, fmt.Errorf("is %d bytes; the limit is %d", len(raw), MaxSchemaBytes)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("is not JSON: %v", err)
	}
	if root, _ := doc.(map[string]any); root == nil || root["type"] != "object" {
		return nil, errors.New(`must describe an object ("type": "object" at its root): the answer is returned as structuredContent, which MCP requires to be an object`)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noDocuments{})
	if err := c.AddResource("schema.json", doc); err != nil {
		return nil, fmt.Errorf("is not valid JSON Schema: %v", err)
	}
	schema, err := c.Compile("schema.json")
	if err != nil {
		return nil, fmt.Errorf("is not valid JSON Schema: %v", err)
	}
	return schema, nil
}

// noDocuments refuses every document a schema refers to.
type noDocuments struct{}

func (noDocuments) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema may not refer to another document (%s): put every definition in $defs", url)
}

// printer renders the validator's messages in English.
var printer = message.NewPrinter(language.English)

// describeAnswer says what each leaf of verr finds wrong with an answer, with where in it.
func describeAnswer(verr *jsonschema.ValidationError) []string {
	var out []string
	for _, leaf := range leavesOf(verr) {
		at := "/" + strings.Join(leaf.InstanceLocation, "/")
		out = append(out, fmt.Sprintf("at %s: %s", at, leaf.ErrorKind.LocalizedString(printer)))
	}
	return out
}
