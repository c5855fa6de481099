// Package dlshim holds dlsym.h, the C helpers that Parley's dlopen shims share (the speech
// engines of server/speech, SpeexDSP's calls in audio/speexdsp). Those packages include it with
// a #cgo CFLAGS -I flag; it has no Go code.
package dlshim
