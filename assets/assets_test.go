package assets

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"strings"
	"testing"
)

func TestIconPNG(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(IconPNG))
	if err != nil {
		t.Fatalf("decode IconPNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 512 || b.Dy() != 512 {
		t.Fatalf("IconPNG is %dx%d, want 512x512", b.Dx(), b.Dy())
	}
}

func TestIconSVG(t *testing.T) {
	var root struct {
		XMLName xml.Name
		ViewBox string `xml:"viewBox,attr"`
	}
	if err := xml.Unmarshal(IconSVG, &root); err != nil {
		t.Fatalf("parse IconSVG: %v", err)
	}
	if root.XMLName.Local != "svg" {
		t.Fatalf("root element is <%s>, want <svg>", root.XMLName.Local)
	}
	if got := strings.Fields(root.ViewBox); len(got) != 4 || got[0] != "0" || got[1] != "0" || got[2] != "512" || got[3] != "512" {
		t.Fatalf("viewBox = %q, want \"0 0 512 512\"", root.ViewBox)
	}
}
