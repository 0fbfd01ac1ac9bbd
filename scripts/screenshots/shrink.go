package main

import (
	"bytes"
	"cmp"
	"image"
	"image/color"
	"image/png"
	"slices"
)

// shrink re-encodes a screenshot with a palette of its 256 most frequent
// colours (the console is flat colours and anti-aliased text: what falls
// outside them takes the nearest) at the best compression, a third to a
// half of the size of Chromium's PNG.
func shrink(data []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	counts := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	type entry struct {
		c color.RGBA
		n int
	}
	var all []entry
	for c, n := range counts {
		all = append(all, entry{c, n})
	}
	slices.SortFunc(all, func(a, b entry) int {
		if a.n != b.n {
			return cmp.Compare(b.n, a.n)
		}
		return cmp.Compare(uint32(a.c.R)<<24|uint32(a.c.G)<<16|uint32(a.c.B)<<8|uint32(a.c.A), uint32(b.c.R)<<24|uint32(b.c.G)<<16|uint32(b.c.B)<<8|uint32(b.c.A))
	})
	pal := make(color.Palette, 0, 256)
	for _, e := range all[:min(256, len(all))] {
		pal = append(pal, e.c)
	}
	out := image.NewPaletted(b, pal)
	index := map[color.RGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
