// A stand-in for Windows 10's bcryptprimitives.dll, for a Wine test prefix only (never shipped).
// Go 1.26 programs call ProcessPrng from it at start; Debian's Wine 8 has no such DLL. This one
// forwards to BCryptGenRandom, which Wine has.
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) {
			return FALSE;
		}
		data += n;
		len -= n;
	}
	return TRUE;
}
