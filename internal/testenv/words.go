package testenv

import "strings"

// WordErrors is the word-level edit distance between a reference and a hypothesis (words split on
// spaces, compared as they are): the word errors of a word error rate.
func WordErrors(ref, hyp string) int {
	r, h := strings.Fields(ref), strings.Fields(hyp)
	prev := make([]int, len(h)+1)
	cur := make([]int, len(h)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur[0] = i
		for j := 1; j <= len(h); j++ {
			sub := prev[j-1]
			if r[i-1] != h[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(h)]
}
