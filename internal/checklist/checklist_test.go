package checklist

import "testing"

func TestAnchor(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"Gemini CLI": "check-gemini-cli", "settings.json": "check-settings-json",
		"Config dir": "check-config-dir", "Auth": "check-auth"} {
		if got := (Check{Name: name}).Anchor(); got != want {
			t.Errorf("Anchor of %q = %q, want %q", name, got, want)
		}
	}
}

func TestCannotServe(t *testing.T) {
	t.Parallel()
	checks := []Check{{Name: "Gemini CLI", Hint: true, Detail: "not found, so auto uses the Gemini API"},
		{Name: "Gemini API", Detail: "no key"}}
	if CannotServe(checks, false) {
		t.Error("a hint about the CLI stops no search")
	}
	if !CannotServe(checks, true) {
		t.Error("a broken check of the backend in force stops every search")
	}
}
