package gemini

import "bytes"

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
	cut bool // bytes were dropped from the front
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		t.cut = true
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = t.buf[:copy(t.buf, t.buf[over:])]
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the kept bytes, starting at a whole line when the front was cut.
func (t *tailBuffer) String() string {
	b := t.buf
	if t.cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// headBuffer keeps the first max bytes written to it and drops the rest.
type headBuffer struct {
	max int
	buf []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	room := h.max - len(h.buf)
	h.buf = append(h.buf, p[:min(len(p), max(room, 0))]...)
	return len(p), nil
}

func (h *headBuffer) String() string { return string(h.buf) }

// lines cuts a stream into lines, without their '\n', and drops any line longer than the max it is given (only
// that one): a runaway line costs at most max bytes. Its zero value is ready.
type lines struct {
	line []byte
	skip bool // the line being read passed max
}

// write reads p, the stream's next bytes, and gives each whole line of at most max bytes to each.
func (l *lines) write(p []byte, max int, each func(line []byte)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.add(p, max)
			return
		}
		l.add(p[:i], max)
		l.flush(each)
		p = p[i+1:]
	}
}

// flush gives the line read so far to each, unless it passed max, and starts the next: the stream's last line,
// which no '\n' ends.
func (l *lines) flush(each func(line []byte)) {
	if !l.skip {
		each(l.line)
	}
	l.line, l.skip = l.line[:0], false
}

func (l *lines) add(p []byte, max int) {
	if l.skip = l.skip || len(l.line)+len(p) > max; l.skip {
		l.line = l.line[:0]
		return
	}
	l.line = append(l.line, p...)
}
