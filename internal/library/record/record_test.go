package record

import (
	"testing"
	"time"
)

func TestValidID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"20261122T100000.123456-0a1b2c3d":         true,
		NewID(time.Now()):                         true,
		"":                                        false,
		"../../etc/passwd":                        false,
		"20261122T100000.123456-0a1b2c3d/../x":    false,
		"20261122T100000.123456-0A1B2C3D":         false,
		"20261122T100000.123456-0a1b2c3d.json":    false,
		"20261122T100000.123456-0a1b2c3d\n":       false,
		"x20261122T100000.123456-0a1b2c3d":        false,
		"20261122T100000.123456-0a1b2c3":          false,
		"20261122T100000.123456-0a1b2c3d%2F..%2F": false,
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestValidJobID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		id := NewJobID()
		if !ValidJobID(id) || seen[id] {
			t.Fatalf("NewJobID: %q (valid %v, seen %v)", id, ValidJobID(id), seen[id])
		}
		seen[id] = true
	}
	if !ValidJobID("0a1b2c3d4e5f6071") {
		t.Error("a valid job id is refused")
	}
	for _, id := range []string{"", "0a1b2c3d4e5f607", "0a1b2c3d4e5f60718", "0A1b2c3d4e5f6071", "../../etc/passwd",
		"20261122T100000.123456-0a1b2c3d", "0a1b2c3d4e5f6071\n", "0a1b2c3d-e5f6071"} {
		if ValidJobID(id) {
			t.Errorf("ValidJobID(%q) = true", id)
		}
	}
}

func TestTookAndWhen(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "0s", 42*time.Second + 400*time.Millisecond: "42s", 185 * time.Second: "3m05s", 62*time.Minute + 10*time.Second: "1h02m",
	} {
		if got := (Summary{Duration: d}).Took(); got != want {
			t.Errorf("Took(%v) = %q, want %q", d, got, want)
		}
	}
	now := time.Date(2026, 11, 22, 18, 30, 0, 0, time.UTC) // a Sunday
	for start, want := range map[time.Time]string{
		time.Date(2026, 11, 22, 9, 5, 0, 0, time.UTC):  "09:05",
		time.Date(2026, 11, 20, 9, 5, 0, 0, time.UTC):  "Fri 09:05",
		time.Date(2026, 11, 2, 9, 5, 0, 0, time.UTC):   "2 Nov 09:05",
		time.Date(2025, 12, 31, 9, 5, 0, 0, time.UTC):  "31 Dec 2025",
		time.Date(2026, 11, 22, 19, 0, 0, 0, time.UTC): "19:00",
	} {
		if got := (Summary{Started: start}).When(now); got != want {
			t.Errorf("When(%v) = %q, want %q", start, got, want)
		}
	}
}
