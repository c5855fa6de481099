// The one helper the speech package's dlopen shims share (resident_linux.go, flitelib_linux.go).
#ifndef PARLEY_DLSYM_H
#define PARLEY_DLSYM_H

#include <dlfcn.h>

// parley_sym looks up one symbol, returning 0 and setting *err to dlerror's text on failure.
static int parley_sym(void *lib, const char *name, void **out, const char **err) {
	dlerror();
	*out = dlsym(lib, name);
	if (*out == NULL) {
		*err = dlerror();
		if (*err == NULL) *err = name;
		return 0;
	}
	return 1;
}

#endif
