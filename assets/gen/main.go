// Command gen draws the tray icons in assets/: one per state, as a 64×64 PNG (Linux, macOS) and as an ICO with
// 16, 24, 32, 48 and 64 pixel images (Windows). Run it from the repository root after changing the drawing:
//
//	go run ./assets/gen
//
// The icon is a magnifying glass in the state's colour; the lens shows what is going on: nothing (idle), three
// dots (researching), a bar (stopped) or an exclamation mark (error).
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
)

type state struct {
	name  string
	color color.NRGBA
	glyph func(x, y float64) bool // in lens coordinates: (0,0) is the centre, 1 the inner radius
}

var states = []state{
	{"idle", color.NRGBA{0x1a, 0x73, 0xe8, 0xff}, func(x, y float64) bool { return false }},
	{"researching", color.NRGBA{0xe3, 0x74, 0x00, 0xff}, func(x, y float64) bool {
		for _, cx := range []float64{-0.5, 0, 0.5} {
			if math.Hypot(x-cx, y) < 0.17 {
				return true
			}
		}
		return false
	}},
	{"stopped", color.NRGBA{0x80, 0x86, 0x8b, 0xff}, func(x, y float64) bool {
		return math.Abs(x) < 0.55 && math.Abs(y) < 0.16
	}},
	{"error", color.NRGBA{0xd9, 0x30, 0x25, 0xff}, func(x, y float64) bool {
		bar := math.Abs(x) < 0.15 && y > -0.62 && y < 0.2
		dot := math.Hypot(x, y-0.5) < 0.16
		return bar || dot
	}},
}

func main() {
	dir := "assets"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for _, s := range states {
		pngData := encode(draw(s, 64))
		if err := os.WriteFile(filepath.Join(dir, s.name+".png"), pngData, 0o644); err != nil {
			fail(err)
		}
		var images [][]byte
		sizes := []int{16, 24, 32, 48, 64}
		for _, size := range sizes {
			images = append(images, encode(draw(s, size)))
		}
		if err := os.WriteFile(filepath.Join(dir, s.name+".ico"), ico(sizes, images), 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

// draw renders the icon at size×size pixels, 8×8 samples per pixel for smooth edges.
func draw(s state, size int) *image.NRGBA {
	const samples = 8
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := range size {
		for px := range size {
			var ringCov, lensCov, glyphCov float64
			for sy := range samples {
				for sx := range samples {
					// Unit coordinates: the whole icon spans 0..1.
					x := (float64(px) + (float64(sx)+0.5)/samples) / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/samples) / float64(size)
					switch shape(s, x, y) {
					case ring:
						ringCov++
					case glyph:
						glyphCov++
					case lens:
						lensCov++
					}
				}
			}
			n := float64(samples * samples)
			ringCov, lensCov, glyphCov = ringCov/n, lensCov/n, glyphCov/n
			// Mix: ring and glyph in the state colour, the lens nearly white so the glyph reads on dark panels.
			colored := ringCov + glyphCov
			alpha := colored + lensCov*0.92
			if alpha == 0 {
				continue
			}
			mix := func(c uint8) uint8 {
				v := (float64(c)*colored + 255*lensCov*0.92) / alpha
				return uint8(math.Round(math.Min(v, 255)))
			}
			img.SetNRGBA(px, py, color.NRGBA{mix(s.color.R), mix(s.color.G), mix(s.color.B), uint8(math.Round(math.Min(alpha, 1) * 255))})
		}
	}
	return img
}

type part int

const (
	none part = iota
	ring
	lens
	glyph
)

// Geometry, in units of the icon's side.
const (
	cx, cy = 0.41, 0.41 // lens centre
	outer  = 0.34       // ring outer radius
	inner  = 0.235      // ring inner radius
	handle = 0.085      // handle half-width
)

func shape(s state, x, y float64) part {
	d := math.Hypot(x-cx, y-cy)
	if d < inner {
		if s.glyph((x-cx)/inner, (y-cy)/inner) {
			return glyph
		}
		return lens
	}
	if d <= outer {
		return ring
	}
	// Handle: a capsule from the ring towards the bottom-right corner.
	ax, ay := cx+outer*0.6, cy+outer*0.6
	bx, by := 0.87, 0.87
	if distToSegment(x, y, ax, ay, bx, by) < handle {
		return ring
	}
	return none
}

func distToSegment(x, y, ax, ay, bx, by float64) float64 {
	dx, dy := bx-ax, by-ay
	t := ((x-ax)*dx + (y-ay)*dy) / (dx*dx + dy*dy)
	t = math.Max(0, math.Min(1, t))
	return math.Hypot(x-(ax+t*dx), y-(ay+t*dy))
}

func encode(img image.Image) []byte {
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&b, img); err != nil {
		fail(err)
	}
	return b.Bytes()
}

// ico packs PNG images into an ICO file (PNG entries are understood since Windows Vista).
func ico(sizes []int, images [][]byte) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	_ = binary.Write(&b, le, [3]uint16{0, 1, uint16(len(images))}) // reserved, type 1 = icon, count
	offset := 6 + 16*len(images)
	for i, data := range images {
		dim := byte(sizes[i] % 256) // 0 means 256
		_ = binary.Write(&b, le, struct {
			W, H, Colors, Reserved byte
			Planes, BitCount       uint16
			Size, Offset           uint32
		}{dim, dim, 0, 0, 1, 32, uint32(len(data)), uint32(offset)})
		offset += len(data)
	}
	for _, data := range images {
		b.Write(data)
	}
	return b.Bytes()
}
