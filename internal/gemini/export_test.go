package gemini

// Used notes a search of model on r that succeeded, as a run does (the first one of a model starts its warm
// processes), without running one.
func Used(r *Runner, model string) { r.used(model) }
