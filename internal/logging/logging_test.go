package logging

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

type secret string

func (s secret) LogValue() slog.Value { return slog.StringValue("[redacted]") }

func TestLineFormat(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := New(&buf, false).With("tool", "search")
	log.Info(`Research in progress... (elapsed: 45s, topic: "x")`, "err", errors.New("exit status 1"), "key", secret("sk-123"))
	log.Debug("hidden")
	log.WithGroup("run").Warn("slow", "n", 2)

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2 (debug hidden):\n%s", len(lines), buf.String())
	}
	want := `[INFO] Research in progress... (elapsed: 45s, topic: "x") tool=search err="exit status 1" key=[redacted]`
	if !strings.HasSuffix(lines[0], want) {
		t.Errorf("got %q, want suffix %q", lines[0], want)
	}
	if !strings.HasSuffix(lines[1], "[WARN] slow tool=search run.n=2") {
		t.Errorf("got %q, want a WARN line with the group prefix", lines[1])
	}
	if strings.Contains(buf.String(), "sk-123") {
		t.Error("a LogValuer secret reached the log")
	}
}
