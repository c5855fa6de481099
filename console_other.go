//go:build !windows

package main

// useParentConsole does nothing outside Windows: programs there always have their standard
// handles.
func useParentConsole() {}
