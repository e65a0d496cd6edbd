package schemas

import (
	"encoding/json"
	"maps"
)

// FollowUp describes the structured content of follow_up: Report's, whose metadata also names the report the
// answer follows up.
var FollowUp = withMetadata(Report, agentRun, map[string]any{"follow_up_of": map[string]any{"type": "string",
	"description": "the id of the report this answer follows up (research://reports/{id}); its sources keep their numbers here"}})

// DeepSearch describes the structured content of deep_search: Report's, whose metadata also says which engine
// researched it when it was Google's agent, that agent's run, and the plan it followed or proposes.
var DeepSearch = withMetadata(Report, agentRun, map[string]any{
	"plan": map[string]any{"type": "string",
		"description": "engine google: the research plan the agent followed, or proposes when the answer is partial and names a plan_id"},
	"plan_id": map[string]any{"type": "string",
		"description": "engine google: a plan that waits for approval; deep_search with this plan_id runs it"},
})

// agentRun are the properties of a report's metadata that say when Google's Deep Research agent made it, and its
// run.
var agentRun = map[string]any{
	"engine": map[string]any{"type": "string", "enum": []string{"google"},
		"description": "set when Google's Deep Research agent researched the report (engine google)"},
	"interaction_id": map[string]any{"type": "string",
		"description": "engine google: the agent's run at the Gemini API (its Interactions API), which a follow-up continues"},
}

// withMetadata is schema, whose metadata is an object, with more properties of the metadata. It reads and writes
// the schema once, however many properties it adds: the server builds these at its start.
func withMetadata(schema string, more ...map[string]any) string {
	var doc map[string]any
	if err := json.Unmarshal([]byte(schema), &doc); err != nil {
		panic("schemas: " + err.Error())
	}
	top, _ := doc["properties"].(map[string]any)
	metadata, _ := top["metadata"].(map[string]any)
	properties, ok := metadata["properties"].(map[string]any)
	if !ok {
		panic("schemas: the schema has no metadata with properties")
	}
	for _, m := range more {
		maps.Copy(properties, m)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic("schemas: " + err.Error())
	}
	return string(b)
}
