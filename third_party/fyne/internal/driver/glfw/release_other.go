//go:build !linux || !cgo

package glfw

// trimCHeap does nothing here: only glibc's allocator needs to be asked.
func trimCHeap() {}
