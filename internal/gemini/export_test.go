package gemini

// Used notes a search of model on r that succeeded, as a run does (the first one of a model starts its warm
// processes), without running one.
func Used(r *Runner, model string) {
	if r.cfg.Warm == WarmACP {
		r.acp.used(model, "")
		return
	}
	if p := r.warm.take(model); p != nil {
		panic("gemini.Used: a warm process was waiting; take one with a run")
	}
}
