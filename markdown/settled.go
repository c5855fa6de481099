package markdown

import "strings"

// Settled is the part of a reply still being written that can be shown now without flicker:
// what it shows will not be drawn differently once more text comes, apart from growing.
//
//   - Whole lines are shown; the line being written is shown only as prose (not in a code
//     block, a table, or a line that may yet turn out to be a fence or a table row), and
//     without a link, inline code or strong emphasis whose end has not come yet.
//   - A table shows once its header and the line under it are written, then row by row.
//   - A code block shows line by line, as an unclosed fence runs to the end.
func Settled(partial string) string {
	sc := scanPartial(partial)
	if sc.tableStart >= 0 && sc.tableRows < 2 {
		// A header row alone is a paragraph until the line under it makes it a table.
		return sc.whole[:sc.tableStart]
	}
	t := strings.TrimSpace(sc.line)
	if sc.inFence || sc.line == "" || sc.tableStart >= 0 ||
		strings.HasPrefix(t, "|") || strings.HasPrefix(t, "`") || strings.HasPrefix(t, "~") {
		return sc.whole
	}
	return sc.whole + openSpansCut(sc.line)
}

// SettledBlocks is Settled without a table or code block that is not closed yet (by a line
// after a table, by the closing fence): for what is said of a reply being written, which says a
// table by its size and a code block as one phrase.
func SettledBlocks(partial string) string {
	sc := scanPartial(partial)
	switch {
	case sc.inFence:
		return sc.whole[:sc.fenceStart]
	case sc.tableStart >= 0:
		return sc.whole[:sc.tableStart]
	}
	return Settled(partial)
}

// partialScan is what scanPartial finds in a reply being written.
type partialScan struct {
	whole, line string // the whole lines (each with its end), and the line being written
	inFence     bool   // the whole lines end inside a fenced code block, which opens at fenceStart
	fenceStart  int
	// tableStart is where the run of table-like lines that ends the whole lines starts (-1
	// when they do not end with one), and tableRows how many lines it has.
	tableStart, tableRows int
}

func scanPartial(partial string) partialScan {
	sc := partialScan{line: partial, tableStart: -1}
	if i := strings.LastIndexByte(partial, '\n'); i >= 0 {
		sc.whole, sc.line = partial[:i+1], partial[i+1:]
	}
	fence := ""
	for off := 0; off < len(sc.whole); {
		end := strings.IndexByte(sc.whole[off:], '\n') + off
		l := strings.TrimSpace(sc.whole[off:end])
		switch {
		case sc.inFence:
			if strings.HasPrefix(l, fence) && strings.Trim(l, fence[:1]) == "" {
				sc.inFence = false
			}
			sc.tableStart, sc.tableRows = -1, 0
		case isFence(l):
			sc.inFence, fence, sc.fenceStart = true, fenceMark(l), off
			sc.tableStart, sc.tableRows = -1, 0
		case strings.HasPrefix(l, "|"):
			if sc.tableStart < 0 {
				sc.tableStart = off
			}
			sc.tableRows++
		default:
			sc.tableStart, sc.tableRows = -1, 0
		}
		off = end + 1
	}
	return sc
}

// isFence reports whether a trimmed line opens a fenced code block.
func isFence(l string) bool {
	return strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~")
}

// fenceMark is the run of fence characters that opens l.
func fenceMark(l string) string {
	n := 0
	for n < len(l) && l[n] == l[0] {
		n++
	}
	return l[:n]
}

// openSpansCut is a line being written without the inline markup that is not closed yet: a link
// whose target has not ended, inline code, strong emphasis, or marks at its end.
func openSpansCut(line string) string {
	if i := strings.LastIndexByte(line, '['); i >= 0 {
		rest := line[i:]
		j := strings.IndexByte(rest, ']')
		// Not closed, closed where a target may yet follow, or with a target not closed.
		if j < 0 || j == len(rest)-1 || rest[j+1] == '(' && !strings.Contains(rest[j+1:], ")") {
			line = line[:i]
		}
	}
	if strings.Count(line, "`")%2 == 1 {
		line = line[:strings.LastIndexByte(line, '`')]
	}
	if strings.Count(line, "**")%2 == 1 {
		line = line[:strings.LastIndex(line, "**")]
	}
	// Marks at the end may open a span the next piece writes.
	return strings.TrimRight(line, "*_`~[!\\")
}
