package clients

import (
	"fmt"
	"regexp"
	"strings"
)

// diffContext is how many unchanged lines a diff shows around each change, as diff -u does.
const diffContext = 3

// Diff is the change as a unified diff of the client's file (as `diff -u` shows it), "" when there is nothing to
// change: what a person reads before saying yes. It is printed to a terminal or a CI log, so each bearer token in
// it shows only its last four characters ("Bearer ••••abcd"); the file gets the token itself.
func (ch Change) Diff() string {
	if !ch.Changed() {
		return ""
	}
	old, next := diffLines(string(ch.Old)), diffLines(string(ch.New))
	ops := diffOps(old, next)
	var b strings.Builder
	from := ch.Client.shownPath()
	if ch.Old == nil {
		from = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, ch.Client.shownPath())
	for _, h := range hunks(ops) {
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(h.oldStart, h.oldLen), hunkRange(h.newStart, h.newLen))
		for _, op := range ops[h.from:h.to] {
			b.WriteString(string(op.kind) + masked(op.text) + "\n")
		}
	}
	return b.String()
}

// bearerToken is a bearer token as the files write it: after "Bearer ", up to a quote, a blank or the line's end.
var bearerToken = regexp.MustCompile(`(?i)(\bbearer\s+)([^\s"'\\,}]+)`)

// masked is line with every bearer token in it hidden but for its last four characters: this server's, the one an
// old entry had, and other servers' in the lines around the change. A token shorter than twelve is hidden whole,
// as four of its characters would say too much of it.
func masked(line string) string {
	return bearerToken.ReplaceAllStringFunc(line, func(m string) string {
		sub := bearerToken.FindStringSubmatch(m)
		return sub[1] + hidden(sub[2])
	})
}

// hidden is a secret as shown to people: "••••" and its last four characters, or "••••" alone when short.
func hidden(secret string) string {
	if len(secret) < 12 {
		return "••••"
	}
	return "••••" + secret[len(secret)-4:]
}

// diffLines is text as lines without their line breaks.
func diffLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), "\n")
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	text string
}

// maxDiffCells bounds the table diffOps compares the changed lines with: a million cells, 8 MB.
const maxDiffCells = 1 << 20

// diffOps is the edit from a to b. A change to a client's file touches one entry, so the lines both files share
// at their start and end are kept as they are, and only the lines between are compared: by their longest common
// subsequence when few enough, otherwise shown as removed, then added. A file of 100,000 lines (Claude Code's
// ~/.claude.json grows that long) costs time and memory in proportion to its length.
func diffOps(a, b []string) []diffOp {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ops := make([]diffOp, 0, len(a)+len(b)-head-tail)
	for _, line := range a[:head] {
		ops = append(ops, diffOp{' ', line})
	}
	ops = append(ops, middleOps(a[head:len(a)-tail], b[head:len(b)-tail])...)
	for _, line := range a[len(a)-tail:] {
		ops = append(ops, diffOp{' ', line})
	}
	return ops
}

// middleOps is the shortest edit from a to b, by their longest common subsequence, or every line of a removed and
// every line of b added when the table of that subsequence would be larger than maxDiffCells.
func middleOps(a, b []string) []diffOp {
	var ops []diffOp
	if (len(a)+1)*(len(b)+1) > maxDiffCells {
		for _, line := range a {
			ops = append(ops, diffOp{'-', line})
		}
		for _, line := range b {
			ops = append(ops, diffOp{'+', line})
		}
		return ops
	}
	width := len(b) + 1
	lcs := make([]int, (len(a)+1)*width) // lcs[i*width+j]: the longest common subsequence of a[i:] and b[j:]
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*width+j] = lcs[(i+1)*width+j+1] + 1
			} else {
				lcs[i*width+j] = max(lcs[(i+1)*width+j], lcs[i*width+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[(i+1)*width+j] >= lcs[i*width+j+1]): // what goes, before what comes
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}

// hunk is a run of ops[from:to] shown together, and where it stands in each file (1-based).
type hunk struct {
	from, to                           int
	oldStart, oldLen, newStart, newLen int
}

// hunks groups the changes of ops with diffContext lines around each; changes closer than twice that share one.
func hunks(ops []diffOp) []hunk {
	var out []hunk
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		from := max(0, i-diffContext)
		to := i
		for to < len(ops) {
			if ops[to].kind != ' ' {
				to++
				continue
			}
			next := to
			for next < len(ops) && ops[next].kind == ' ' {
				next++
			}
			if next == len(ops) || next-to > 2*diffContext {
				to = min(len(ops), to+diffContext)
				break
			}
			to = next
		}
		out = append(out, position(ops, from, to))
		i = to
	}
	return out
}

// position is the hunk of ops[from:to] with its line numbers in each file.
func position(ops []diffOp, from, to int) hunk {
	h := hunk{from: from, to: to, oldStart: 1, newStart: 1}
	for _, op := range ops[:from] {
		if op.kind != '+' {
			h.oldStart++
		}
		if op.kind != '-' {
			h.newStart++
		}
	}
	for _, op := range ops[from:to] {
		if op.kind != '+' {
			h.oldLen++
		}
		if op.kind != '-' {
			h.newLen++
		}
	}
	return h
}

// hunkRange is a hunk's start and length as diff -u writes them: "3,4", "3" for one line, "2,0" for none (the
// line before it).
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
