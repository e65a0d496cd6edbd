// Package gemini runs the Google Gemini CLI as a one-shot research sub-agent.
//
// A [Runner] starts the CLI once per request with the prompt on stdin and
// `-o stream-json`, in its own process group, with a private TMPDIR and a
// deliberately built environment. It reads the JSON Lines event stream as it
// arrives (answer text, model, search queries, fetched URLs), enforces a
// whole-run timeout, kills every process the CLI started when the run ends,
// and turns failures into an [*Error] whose [Code] says what went wrong
// (quota, auth, untrusted workspace, empty answer, timeout ...).
//
// Kept warm (KeepWarm), the Runner runs prompts in sessions of a long-lived
// `gemini --acp` worker instead (acp.go, acp_pool.go, acp_run.go), whose
// updates it turns into the same events, so that both give the same Result.
//
// The measured behaviour of the CLI this package relies on is written up in
// shared/notes/gemini-cli.md. Tests use the fake CLI in package geminitest.
package gemini
