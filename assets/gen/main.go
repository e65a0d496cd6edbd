// Command gen draws the tray icons in assets/: one per state, as a 64×64 PNG (Linux, macOS) and as an ICO with
// 16, 24, 32, 48 and 64 pixel images (Windows); and the app icon, the idle one at 128, 256 and 512 pixels, into
// packaging/icons/ (the Linux packages' desktop entry, the Claude Desktop bundle). Run it from the repository root
// after changing the drawing:
//
//	go run ./assets/gen
//
// The icon is a magnifying glass in the state's colour; the lens shows what is going on: nothing (idle), three
// dots (researching), a bar (stopped) or an exclamation mark (error). The failing icon is the idle one with an
// amber warning badge (a dark exclamation mark on an amber disc) in the top-right corner, cut out of the glass by
// a thin transparent gap so it reads against the ring.
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
	badge bool                    // draw the warning badge over the top-right corner
}

func noGlyph(x, y float64) bool { return false }

var states = []state{
	{"idle", color.NRGBA{0x1a, 0x73, 0xe8, 0xff}, noGlyph, false},
	{"researching", color.NRGBA{0xe3, 0x74, 0x00, 0xff}, func(x, y float64) bool {
		for _, cx := range []float64{-0.5, 0, 0.5} {
			if math.Hypot(x-cx, y) < 0.17 {
				return true
			}
		}
		return false
	}, false},
	{"stopped", color.NRGBA{0x80, 0x86, 0x8b, 0xff}, func(x, y float64) bool {
		return math.Abs(x) < 0.55 && math.Abs(y) < 0.16
	}, false},
	{"error", color.NRGBA{0xd9, 0x30, 0x25, 0xff}, func(x, y float64) bool {
		bar := math.Abs(x) < 0.15 && y > -0.62 && y < 0.2
		dot := math.Hypot(x, y-0.5) < 0.16
		return bar || dot
	}, false},
	{"failing", color.NRGBA{0x1a, 0x73, 0xe8, 0xff}, noGlyph, true},
}

// Warning badge colours: an amber disc with a dark exclamation mark.
var (
	badgeColor = color.NRGBA{0xf9, 0xab, 0x00, 0xff}
	markColor  = color.NRGBA{0x20, 0x21, 0x24, 0xff}
)

func main() {
	dir, appDir := "assets", filepath.Join("packaging", "icons")
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if len(os.Args) > 2 {
		appDir = os.Args[2]
	}
	for _, size := range []int{128, 256, 512} {
		name := filepath.Join(appDir, fmt.Sprintf("%d.png", size))
		if err := os.WriteFile(name, encode(draw(states[0], size)), 0o644); err != nil {
			fail(err)
		}
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
			var ringCov, lensCov, glyphCov, badgeCov, markCov float64
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
					case badge:
						badgeCov++
					case mark:
						markCov++
					}
				}
			}
			n := float64(samples * samples)
			ringCov, lensCov, glyphCov = ringCov/n, lensCov/n, glyphCov/n
			badgeCov, markCov = badgeCov/n, markCov/n
			// Mix: ring and glyph in the state colour, the lens nearly white so the glyph reads on dark panels; the
			// badge (zero unless s.badge) in its own colours.
			colored := ringCov + glyphCov
			alpha := colored + lensCov*0.92 + badgeCov + markCov
			if alpha == 0 {
				continue
			}
			mix := func(c, b, m uint8) uint8 {
				v := (float64(c)*colored + 255*lensCov*0.92 + float64(b)*badgeCov + float64(m)*markCov) / alpha
				return uint8(math.Round(math.Min(v, 255)))
			}
			img.SetNRGBA(px, py, color.NRGBA{
				mix(s.color.R, badgeColor.R, markColor.R),
				mix(s.color.G, badgeColor.G, markColor.G),
				mix(s.color.B, badgeColor.B, markColor.B),
				uint8(math.Round(math.Min(alpha, 1) * 255)),
			})
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
	badge // the warning badge's disc
	mark  // the warning badge's exclamation mark
)

// Geometry, in units of the icon's side.
const (
	cx, cy = 0.41, 0.41 // lens centre
	outer  = 0.34       // ring outer radius
	inner  = 0.235      // ring inner radius
	handle = 0.085      // handle half-width

	bx0, by0 = 12.5 / 16, 3.5 / 16 // badge centre, on a pixel centre at 16 px so the mark stays crisp
	badgeR   = 0.22                // badge radius
	badgeGap = 0.06                // transparent gap between the badge and the glass
)

func shape(s state, x, y float64) part {
	if s.badge {
		if d := math.Hypot(x-bx0, y-by0); d < badgeR {
			// Badge coordinates: (0,0) is the centre, 1 the radius.
			u, v := (x-bx0)/badgeR, (y-by0)/badgeR
			bar := math.Abs(u) < 0.17 && v > -0.7 && v < 0.14
			dot := math.Hypot(u, v-0.57) < 0.17
			if bar || dot {
				return mark
			}
			return badge
		} else if d < badgeR+badgeGap {
			return none
		}
	}
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
