package main

import (
	"os"
	"syscall"
)

// useParentConsole gives the command-line client the console it was typed in. fyne package
// links parley.exe as a windowed program, which Windows starts without standard handles: its
// output would go nowhere. Output redirected to a file or a pipe has handles and is kept.
func useParentConsole() {
	const attachParentProcess = ^uintptr(0) // ATTACH_PARENT_PROCESS, (DWORD)-1
	attach := syscall.NewLazyDLL("kernel32.dll").NewProc("AttachConsole")
	if ok, _, _ := attach.Call(attachParentProcess); ok == 0 {
		return // started from Explorer, or already attached to a console
	}
	reopen := func(std int, name string, flag int, f **os.File) {
		if h, err := syscall.GetStdHandle(std); err == nil && h != 0 && h != syscall.InvalidHandle {
			return
		}
		if c, err := os.OpenFile(name, flag, 0); err == nil {
			*f = c
		}
	}
	reopen(syscall.STD_INPUT_HANDLE, "CONIN$", os.O_RDWR, &os.Stdin)
	reopen(syscall.STD_OUTPUT_HANDLE, "CONOUT$", os.O_RDWR, &os.Stdout)
	reopen(syscall.STD_ERROR_HANDLE, "CONOUT$", os.O_RDWR, &os.Stderr)
}
