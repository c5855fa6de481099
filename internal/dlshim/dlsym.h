// The helpers Parley's dlopen shims share (server/speech, audio/echo): included with
// #cgo CFLAGS: -I${SRCDIR}/RELATIVE/internal/dlshim.
#ifndef PARLEY_DLSYM_H
#define PARLEY_DLSYM_H

#include <dlfcn.h>
#include <stdio.h>

// PARLEY_ERRLEN is the size of the buffer a shim's caller gives it for what went wrong.
#define PARLEY_ERRLEN 512

// parley_dlerr copies dlerror's text (or fallback, when it has none) into err, which holds
// PARLEY_ERRLEN bytes. The text dlerror returns lives only until the next dl call on the same
// thread, which another goroutine may make before Go has read it.
static void parley_dlerr(char *err, const char *fallback) {
	const char *e = dlerror();
	snprintf(err, PARLEY_ERRLEN, "%s", e != NULL ? e : fallback);
}

// parley_open opens a library with dlopen's flags, returning NULL and writing what went wrong
// to err on failure.
static void *parley_open(const char *lib, int flags, char *err) {
	void *h = dlopen(lib, flags);
	if (h == NULL) parley_dlerr(err, lib);
	return h;
}

// parley_sym looks up one symbol, returning 0 and writing dlerror's text to err on failure.
static int parley_sym(void *lib, const char *name, void **out, char *err) {
	dlerror();
	*out = dlsym(lib, name);
	if (*out == NULL) {
		parley_dlerr(err, name);
		return 0;
	}
	return 1;
}

#endif
