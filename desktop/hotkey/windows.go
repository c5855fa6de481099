//go:build windows

package hotkey

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32               = windows.NewLazySystemDLL("user32.dll")
	procRegisterHotKey   = user32.NewProc("RegisterHotKey")
	procUnregisterHotKey = user32.NewProc("UnregisterHotKey")
	procGetMessageW      = user32.NewProc("GetMessageW")
	procPostThreadMsgW   = user32.NewProc("PostThreadMessageW")
	procGetAsyncKeyState = user32.NewProc("GetAsyncKeyState")
)

const (
	wmHotkey      = 0x0312
	wmQuit        = 0x0012
	modAlt        = 0x0001
	modControl    = 0x0002
	modShift      = 0x0004
	modWin        = 0x0008
	modNoRepeat   = 0x4000
	errHotkeyUsed = 1409 // ERROR_HOTKEY_ALREADY_REGISTERED
	hotkeyID      = 1
)

// winKeyUpPoll is how often the key is looked at while held: Windows reports a hotkey's press
// only, so its release is found by asking.
const winKeyUpPoll = 15 * time.Millisecond

// winVKs are the virtual-key codes of Keys.
var winVKs = func() map[string]uintptr {
	m := map[string]uintptr{
		"Space": 0x20, "Return": 0x0d, "Tab": 0x09, "Escape": 0x1b, "BackSpace": 0x08,
		"Insert": 0x2d, "Delete": 0x2e, "Home": 0x24, "End": 0x23, "Prior": 0x21, "Next": 0x22,
		"Left": 0x25, "Up": 0x26, "Right": 0x27, "Down": 0x28,
		"-": 0xbd, "=": 0xbb, "[": 0xdb, "]": 0xdd, "\\": 0xdc, ";": 0xba, "'": 0xde, ",": 0xbc,
		".": 0xbe, "/": 0xbf, "`": 0xc0,
	}
	for c := 'A'; c <= 'Z'; c++ {
		m[string(c)] = uintptr(c)
	}
	for c := '0'; c <= '9'; c++ {
		m[string(c)] = uintptr(c)
	}
	for i := 1; i <= 12; i++ {
		m[fmt.Sprintf("F%d", i)] = uintptr(0x70 + i - 1)
	}
	return m
}()

type winMsg struct {
	hwnd    uintptr
	message uint32
	wParam  uintptr
	lParam  uintptr
	time    uint32
	pt      struct{ x, y int32 }
	private uint32
}

// registerWindows registers c with RegisterHotKey on a thread of its own, which then runs a
// message loop for it.
func registerWindows(c Combo) (*Listener, error) {
	var mods uintptr = modNoRepeat
	if c.Mods&Ctrl != 0 {
		mods |= modControl
	}
	if c.Mods&Alt != 0 {
		mods |= modAlt
	}
	if c.Mods&Shift != 0 {
		mods |= modShift
	}
	if c.Mods&Super != 0 {
		mods |= modWin
	}
	vk := winVKs[c.Key]
	l := &Listener{events: make(chan Event, 16), via: "Windows"}
	ready := make(chan error, 1)
	var tid atomic.Uint32
	var quit atomic.Bool
	done := make(chan struct{})
	go func() {
		// The thread is never unlocked: it ends with this goroutine, and with it its message
		// queue, which may still hold the WM_QUIT that Close posted (another goroutine given
		// the thread would read it first and stop at once).
		runtime.LockOSThread()
		defer close(done)
		defer close(l.events)
		tid.Store(windows.GetCurrentThreadId())
		if r, _, err := procRegisterHotKey.Call(0, hotkeyID, mods, vk); r == 0 {
			var errno windows.Errno
			if errors.As(err, &errno) && errno == errHotkeyUsed {
				ready <- ErrTaken
			} else {
				ready <- fmt.Errorf("RegisterHotKey: %w", err)
			}
			return
		}
		defer procUnregisterHotKey.Call(0, hotkeyID)
		ready <- nil
		var m winMsg
		for !quit.Load() {
			r, _, _ := procGetMessageW.Call(uintptr(unsafe.Pointer(&m)), 0, 0, 0)
			if int32(r) <= 0 { // WM_QUIT, or an error
				return
			}
			if m.message != wmHotkey || m.wParam != hotkeyID {
				continue
			}
			l.events <- Event{Down: true, At: time.Now()}
			for !quit.Load() {
				time.Sleep(winKeyUpPoll)
				if s, _, _ := procGetAsyncKeyState.Call(vk); s&0x8000 == 0 {
					break
				}
			}
			l.events <- Event{Down: false, At: time.Now()}
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	var once sync.Once
	l.stop = func() error {
		once.Do(func() {
			quit.Store(true)
			procPostThreadMsgW.Call(uintptr(tid.Load()), wmQuit, 0, 0)
			// The key is given back (UnregisterHotKey) before Close returns, so that trying
			// it again at once finds it free.
			select {
			case <-done:
			case <-time.After(time.Second):
			}
		})
		return nil
	}
	return l, nil
}
