package mockgemini

import (
	"encoding/json"
	"strings"
)

// fillSchema answers a structured-output request with a JSON value that
// fits its schema: the first enum value, the minimum of a number, a short
// string, and every property of an object. For the CLI's model router that
// picks the first (flash) model or the lowest complexity score.
func fillSchema(r *Request) Reply {
	var schema map[string]any
	if err := json.Unmarshal(r.ResponseSchema, &schema); err != nil {
		return Text("{}")
	}
	return JSON(sample(schema, 0))
}

func sample(schema map[string]any, depth int) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := schema["type"].(string)
	if typ == "" { // a list of types, or none
		if list, ok := schema["type"].([]any); ok && len(list) > 0 {
			typ, _ = list[0].(string)
		}
	}
	switch strings.ToLower(typ) {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for name, p := range props {
			if sub, ok := p.(map[string]any); ok && depth < 8 {
				out[name] = sample(sub, depth+1)
			}
		}
		return out
	case "array":
		items, _ := schema["items"].(map[string]any)
		if items == nil || depth >= 8 {
			return []any{}
		}
		return []any{sample(items, depth+1)}
	case "integer", "number":
		if m, ok := schema["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return false
	default:
		return "mock"
	}
}
