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
