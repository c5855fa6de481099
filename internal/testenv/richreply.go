package testenv

import (
	"fmt"
	"strings"
)

// EveryBlock is a reply with every kind of block the window renders: a heading, inline styles,
// a link, a table with aligned columns, highlighted code, ordered, nested and task lists, a quote
// and a rule.
const EveryBlock = "# Heading\n\nPlain **strong** *em* ~~gone~~ `code [1]` a[i] [offline] $5 & <b> [link](https://parley.example/x).\n\n" +
	"| Left | Centre | Right |\n|:-----|:------:|------:|\n| a | b | 3 |\n| longer cell | c | 42 |\n\n" +
	"```python\ndef f(x):\n    return 'hi'  # comment\n```\n\n" +
	"1. one\n2. two\n   - nested\n\n- [ ] open\n- [x] done\n\n> quoted *text*\n\n---\n\nThe end."

// RichReply is a reply of about 10,000 characters as an assistant writes them: paragraphs,
// 3 highlighted code blocks and a table of 50 rows.
func RichReply() string {
	var b strings.Builder
	para := "The tide turns at six, and the wind is from the west at force four: hold course **two seven zero** and keep a lookout for the `ferry` [1]. "
	code := map[string]string{
		"go":     "func bearing(from, to Point) float64 {\n\tdy := to.Lat - from.Lat\n\tdx := (to.Lon - from.Lon) * math.Cos(from.Lat)\n\treturn math.Mod(math.Atan2(dx, dy)*180/math.Pi+360, 360) // degrees\n}\n",
		"python": "def tide(hour: int) -> float:\n    \"\"\"Height of the tide in metres.\"\"\"\n    return 2.5 + 1.8 * math.sin((hour - 6) / 12.42 * 2 * math.pi)\n",
		"js":     "const knots = (ms) => ms * 1.943844;\nfor (const leg of route) {\n  console.log(`${leg.name}: ${knots(leg.speed).toFixed(1)} kn`);\n}\n",
	}
	for _, lang := range []string{"go", "python", "js"} {
		for i := 0; i < 5; i++ {
			b.WriteString(para)
		}
		b.WriteString("\n\n```" + lang + "\n" + code[lang] + "```\n\n")
	}
	b.WriteString("| Port | Distance (nm) | Bearing | Note |\n|:-----|--------------:|:-------:|------|\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "| Port number %d | %d.%d | %03d° | keep the buoy to port |\n", i, 10+i*3, i%10, (i*37)%360)
	}
	for b.Len() < 10000 {
		b.WriteString("\n" + para)
	}
	return b.String()
}
