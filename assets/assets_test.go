package assets

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"testing"
)

func TestIcons(t *testing.T) {
	t.Parallel()
	for _, state := range States {
		t.Run(state, func(t *testing.T) {
			t.Parallel()
			data, err := Icon(state, "png")
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("decode png: %v", err)
			}
			if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 64 {
				t.Errorf("png size %v, want 64x64", b.Size())
			}
			ico, err := Icon(state, "ico")
			if err != nil {
				t.Fatal(err)
			}
			var head [3]uint16
			if err := binary.Read(bytes.NewReader(ico), binary.LittleEndian, &head); err != nil || head[0] != 0 || head[1] != 1 || head[2] != 5 {
				t.Errorf("ico header %v (err %v), want [0 1 5]", head, err)
			}
		})
	}
	if _, err := Icon("nope", "png"); err == nil {
		t.Error("Icon(nope) succeeded, want an error")
	}
}
