package library

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// The library's share of a server's start and of a list or a search, with 10,000 reports of about 4 KB each kept.
// `make bench` prints these; nothing here asserts a time. Targets: a start with its first list no more than 20 ms
// over an empty library's, a search within 20 ms.

const benchReports = 10_000

// fill keeps n reports of made-up words in the library at path, in one transaction, and returns a word found in
// about one report in ten and one found in about one in a hundred.
func fill(b *testing.B, path string, n int) (common, rare string) {
	b.Helper()
	l, err := Open(path, Options{Retention: Retention{MaxReports: n}, Poll: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	vocabulary := make([]string, 5000)
	for i := range vocabulary {
		vocabulary[i] = fmt.Sprintf("w%dx%d", i, i*7%13)
	}
	words := func(k int) string {
		var sb strings.Builder
		for range k {
			// a few words are common, most rare: roughly as in prose
			sb.WriteString(vocabulary[int(float64(len(vocabulary))*rng.Float64()*rng.Float64()*rng.Float64())])
			sb.WriteByte(' ')
		}
		return sb.String()
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	err = inTx(l.db, func(tx *sql.Tx) error {
		for i := range n {
			t := start.Add(time.Duration(i) * time.Hour)
			md := "# " + words(8) + "\n\n" + words(600)
			if _, err := tx.Exec(`INSERT INTO reports (id, tool, topic, started, took_ms, size, kept, markdown)
				VALUES (?, 'search', ?, ?, 83000, ?, ?, ?)`, record.NewID(t), words(8), micros(t), len(md), micros(t),
				md); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	// word i of the vocabulary is drawn with a density of ln²(i/len)/2: 0.96 at a quarter, 0.083 at two thirds
	return vocabulary[len(vocabulary)/4], vocabulary[len(vocabulary)*2/3]
}

// BenchmarkOpenAndList is a server's start with its library: Open, then the first list the views show (the 50
// newest, and the count), on an empty library and on one of 10,000 reports.
func BenchmarkOpenAndList(b *testing.B) {
	for _, n := range []int{0, benchReports} {
		b.Run(fmt.Sprintf("reports=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), FileName)
			fill(b, path, n)
			retention := Retention{MaxReports: benchReports, MaxAge: 10 * 365 * 24 * time.Hour, MaxBytes: 1 << 30}
			b.ResetTimer()
			for b.Loop() {
				l, err := Open(path, Options{Retention: retention})
				if err != nil {
					b.Fatal(err)
				}
				if list := l.List(50); len(list) != min(n, 50) || l.Len() != n {
					b.Fatalf("listed %d of %d", len(list), l.Len())
				}
				b.StopTimer()
				l.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkSearch is list_research's query, the best 20 with excerpts: a word in about one report in ten (1,000
// matches to rank), one in about one in a hundred, both, a word in none, each since a date; and a list without
// words, since a date and of every report (list_research without arguments).
func BenchmarkSearch(b *testing.B) {
	path := filepath.Join(b.TempDir(), FileName)
	common, rare := fill(b, path, benchReports)
	l, err := Open(path, Options{Retention: Retention{MaxReports: benchReports}, Poll: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	june := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		query string
		since time.Time
	}{{"common-word", common, june}, {"rare-word", rare, june}, {"both", common + " " + rare, june},
		{"no-match", "nowhere", june}, {"no-words", "", june}, {"no-words/every-report", "", time.Time{}}} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := l.Search(tt.query, tt.since, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
