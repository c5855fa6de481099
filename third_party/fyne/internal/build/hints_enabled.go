//go:build hints

package build

// HasHints is true to indicate that hints are currently switched on.
const HasHints = true
