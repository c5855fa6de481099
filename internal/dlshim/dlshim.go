// Package dlshim holds dlsym.h, the C helpers that Parley's dlopen shims share (the speech
// engines of server/speech, the echo canceller of audio/echo). Those packages include it with
// a #cgo CFLAGS -I flag; it has no Go code.
package dlshim
