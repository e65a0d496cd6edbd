package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// validated checks a call's arguments against the tool's own input schema before handler runs, and answers a bad
// call with an error result that says, in words, what is wrong with which argument. mcp-go's built-in validation
// does the same check but reports it as Go structs ("/query: &{Got:0 Want:1}").
func validated(tool mcp.Tool, handler server.ToolHandlerFunc) server.ToolHandlerFunc {
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
	schema := c.MustCompile(tool.Name + ".json") // a broken schema is a programming error, caught by every test

	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		if args == nil {
			args = map[string]any{}
		}
		// Round-trip through JSON so the validator sees plain JSON types whatever the transport decoded.
		b, err := json.Marshal(args)
		if err == nil {
			var inst any
			if inst, err = jsonschema.UnmarshalJSON(strings.NewReader(string(b))); err == nil {
				err = schema.Validate(inst)
			}
		}
		if err != nil {
			return invalidArguments(tool.Name, err), nil
		}
		return handler(ctx, req)
	}
}

func invalidArguments(toolName string, err error) *mcp.CallToolResult {
	var verr *jsonschema.ValidationError
	msg := err.Error()
	if errors.As(err, &verr) {
		msg = strings.Join(describe(verr), "; ")
	}
	return errorResultInfo(errorInfo{Code: codeInvalidArgument, Message: "invalid arguments for " + toolName + ": " + msg})
}

// describe renders each leaf of a validation error as a sentence naming the argument.
func describe(verr *jsonschema.ValidationError) []string {
	if len(verr.Causes) > 0 {
		var out []string
		for _, c := range verr.Causes {
			out = append(out, describe(c)...)
		}
		return out
	}
	name := strings.Join(verr.InstanceLocation, ".")
	switch k := verr.ErrorKind.(type) {
	case *kind.Required:
		return []string{fmt.Sprintf("%s is required", strings.Join(k.Missing, ", "))}
	case *kind.AdditionalProperties:
		return []string{fmt.Sprintf("unknown argument %s", strings.Join(k.Properties, ", "))}
	case *kind.Type:
		return []string{fmt.Sprintf("%s must be a %s, not a %s", name, strings.Join(k.Want, " or "), k.Got)}
	case *kind.MinLength:
		if k.Want == 1 {
			return []string{fmt.Sprintf("%s must not be empty", name)}
		}
		return []string{fmt.Sprintf("%s must be at least %d characters long (got %d)", name, k.Want, k.Got)}
	case *kind.MaxLength:
		return []string{fmt.Sprintf("%s must be at most %d characters long (got %d)", name, k.Want, k.Got)}
	case *kind.Pattern:
		return []string{fmt.Sprintf("%s %q is not valid: it must match %s", name, k.Got, k.Want)}
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprintf("%q", w)
		}
		return []string{fmt.Sprintf("%s must be one of %s (got %v)", name, strings.Join(want, ", "), k.Got)}
	}
	return []string{fmt.Sprintf("%s: %s", name, verr.Error())}
}
