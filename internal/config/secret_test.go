package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

const testKey = "fc-0123456789abcdef"

func TestSecretNeverLeaks(t *testing.T) {
	t.Parallel()
	s := Secret(testKey)
	c := Config{FirecrawlAPIKey: s, AuthToken: Secret("tok-ABCDEFGH"), Host: "127.0.0.1"}
	ptr := &c

	var outputs = map[string]string{}
	for _, verb := range []string{"%v", "%s", "%+v", "%#v", "%q", "%x", "%X", "%d", "%10s", "%-20v", "%T"} {
		outputs["secret "+verb] = fmt.Sprintf(verb, s)
		outputs["config "+verb] = fmt.Sprintf(verb, c)
		outputs["pointer "+verb] = fmt.Sprintf(verb, ptr)
		outputs["slice "+verb] = fmt.Sprintf(verb, []Secret{s})
		outputs["map "+verb] = fmt.Sprintf(verb, map[string]Secret{"k": s})
	}
	outputs["Sprint"] = fmt.Sprint(s, c)
	outputs["Sprintln"] = fmt.Sprintln(s, c)

	for name, j := range map[string]any{"secret": s, "config": c, "pointer": ptr} {
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatalf("json.Marshal(%s): %v", name, err)
		}
		outputs["json "+name] = string(b)
	}

	var logs bytes.Buffer
	jsonLog := slog.New(slog.NewJSONHandler(&logs, nil))
	jsonLog.Info("loaded", "key", s, "config", c, slog.Any("ptr", ptr), slog.Group("g", "key", s))
	textLog := slog.New(slog.NewTextHandler(&logs, nil))
	textLog.Info("loaded", "key", s, "config", c)
	outputs["slog"] = logs.String()

	for name, out := range outputs {
		if strings.Contains(out, testKey) || strings.Contains(out, "ABCDEFGH") ||
			strings.Contains(out, fmt.Sprintf("%x", testKey)) {
			t.Errorf("%s leaks the secret: %s", name, out)
		}
	}
	if got := outputs["secret %v"]; got != "[redacted]" {
		t.Errorf("%%v: got %q, want %q", got, "[redacted]")
	}
	if got := outputs["json secret"]; got != `"[redacted]"` {
		t.Errorf("json: got %s, want %q", got, `"[redacted]"`)
	}
	if !strings.Contains(outputs["slog"], `"key":"[redacted]"`) {
		t.Errorf("slog JSON: got %s, want a masked key", outputs["slog"])
	}
	if s.Reveal() != testKey {
		t.Errorf("Reveal: got %q, want %q", s.Reveal(), testKey)
	}
}

func TestSecretEmpty(t *testing.T) {
	t.Parallel()
	var s Secret
	for _, got := range []string{s.String(), s.GoString(), fmt.Sprint(s), s.LogValue().String(), s.Last4()} {
		if got != "" {
			t.Errorf("got %q, want empty", got)
		}
	}
	if b, _ := json.Marshal(s); string(b) != `""` {
		t.Errorf("json: got %s, want %q", b, `""`)
	}
}

func TestSecretLast4(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "••••••••"},
		{"1234567", "••••••••"},
		{"12345678", "••••5678"},
		{testKey, "••••cdef"},
		{"ключ-секрет-éèàü", "••••éèàü"},
	}
	for _, tt := range tests {
		if got := Secret(tt.in).Last4(); got != tt.want {
			t.Errorf("Last4(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}
