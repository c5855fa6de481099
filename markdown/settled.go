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
	whole, line := partial, ""
	if i := strings.LastIndexByte(partial, '\n'); i >= 0 {
		whole, line = partial[:i+1], partial[i+1:]
	} else {
		whole, line = "", partial
	}
	inFence := false
	fence := ""
	tableStart, tableRows := -1, 0 // the byte where the last run of table-like lines starts
	for off := 0; off < len(whole); {
		end := strings.IndexByte(whole[off:], '\n') + off
		l := strings.TrimSpace(whole[off:end])
		switch {
		case inFence:
			if strings.HasPrefix(l, fence) && strings.Trim(l, fence[:1]) == "" {
				inFence = false
			}
			tableStart, tableRows = -1, 0
		case isFence(l):
			inFence, fence = true, fenceMark(l)
			tableStart, tableRows = -1, 0
		case strings.HasPrefix(l, "|"):
			if tableStart < 0 {
				tableStart = off
			}
			tableRows++
		default:
			tableStart, tableRows = -1, 0
		}
		off = end + 1
	}
	if tableStart >= 0 && tableRows < 2 {
		// A header row alone is a paragraph until the line under it makes it a table.
		return whole[:tableStart]
	}
	t := strings.TrimSpace(line)
	if inFence || line == "" || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "`") || strings.HasPrefix(t, "~") ||
		(tableStart >= 0) {
		return whole
	}
	return whole + openSpansCut(line)
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
