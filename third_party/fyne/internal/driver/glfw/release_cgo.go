//go:build linux && cgo

package glfw

/*
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
static void parley_trim(void) { malloc_trim(0); }
#else
static void parley_trim(void) {}
#endif
*/
import "C"

// trimCHeap hands the C heap's free pages back to the system (glibc keeps them otherwise: what
// the GL driver frees between the allocations that live on is never at the heap's top).
func trimCHeap() { C.parley_trim() }
