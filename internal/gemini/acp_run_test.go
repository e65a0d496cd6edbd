package gemini

import (
	"encoding/json"
	"testing"
)

// A tool call that failed is named by its tool, announced by a tool_call or not.
func TestACPFailedToolIsNamed(t *testing.T) {
	out := newCollector(1<<20, nil)
	run := newACPRun(out, "m1")
	failed := json.RawMessage(`[{"type":"content","content":{"type":"text","text":"unreachable"}}]`)
	run.update(acpUpdate{SessionUpdate: "tool_call", ToolCallID: "google_web_search__1", Status: "in_progress",
		Title: `Searching the web for: "q"`})
	run.update(acpUpdate{SessionUpdate: "tool_call_update", ToolCallID: "google_web_search__1", Status: "failed", Content: failed})
	run.update(acpUpdate{SessionUpdate: "tool_call_update", ToolCallID: "web_fetch__2", Status: "failed", Content: failed})
	run.update(acpUpdate{SessionUpdate: "agent_message_chunk", Content: json.RawMessage(`{"type":"text","text":"answer"}`)})
	run.finish(promptResult{stopReason: "end_turn"})
	res := out.result()
	if len(res.ToolErrors) != 2 || res.ToolErrors[0].Tool != "google_web_search" || res.ToolErrors[1].Tool != "web_fetch" {
		t.Errorf("got tool errors %+v, want google_web_search and web_fetch", res.ToolErrors)
	}
}
