// Package version holds what the build says about itself: the release, the commit and the build
// date, set by the Makefile with -ldflags "-X parley/internal/version.Version=…" (for `make build`,
// and through fyne package for the archives of `make package`), and the Go version.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at link time; the defaults describe a plain `go build`.
var (
	// Version is the release, such as "0.3.0" or a `git describe` string.
	Version = "dev"
	// Commit is the source commit the binary was built from.
	Commit = ""
	// Date is when the binary was built (RFC 3339).
	Date = ""
)

// commit returns Commit, else the VCS revision Go recorded, else "unknown".
func commit() string {
	if Commit != "" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// String is one line: "parley 0.3.0 (commit abc1234, built 2026-11-23T10:00:00Z, go1.26.8 linux/amd64)".
func String() string {
	c := commit()
	if len(c) > 12 {
		c = c[:12]
	}
	built := ""
	if Date != "" {
		built = ", built " + Date
	}
	return fmt.Sprintf("parley %s (commit %s%s, %s %s/%s)", Version, c, built, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
