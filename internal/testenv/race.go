//go:build race

package testenv

// Race reports whether the race detector is on: it makes code 5 to 10 times slower, and tests
// that only measure (memory held, not behaviour) run in the build without it.
const Race = true
