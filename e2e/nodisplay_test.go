package e2e

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestApp_NoDisplayIsExplained starts the desktop app where it cannot open a window: with no
// display at all, and with DISPLAY naming one where no X server runs (a variable left over an
// ssh session, or an X server that died). Both say so in the same paragraph, with what works
// without a display, and exit 1; neither panics with GLFW's stack trace.
func TestApp_NoDisplayIsExplained(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the display checks are Linux's")
	}
	const dead = ":987"
	if _, err := os.Stat("/tmp/.X11-unix/X987"); err == nil {
		t.Skipf("an X server listens on %s here", dead)
	}
	if c, err := net.Dial("unix", "@/tmp/.X11-unix/X987"); err == nil { // as libxcb, Parley tries it too
		c.Close()
		t.Skipf("an X server listens on %s's abstract socket here", dead)
	}
	home := t.TempDir()
	for _, c := range []struct {
		name, display, want string
	}{
		{"unset", "", "parley: there is no display (DISPLAY and WAYLAND_DISPLAY are unset), so the desktop app cannot open."},
		{"nothing there", dead, `parley: the X display ":987" named by DISPLAY cannot be opened (`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var env []string
			for _, kv := range appEnviron() {
				if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
					env = append(env, kv)
				}
			}
			env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
				"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
				"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(home, "no-bus"))
			if c.display != "" {
				env = append(env, "DISPLAY="+c.display)
			}
			r := run(t, env, "")
			if r.Code != 1 || !strings.HasPrefix(r.Stderr, c.want) {
				t.Errorf("DISPLAY=%q: %s\nwant exit 1 and stderr beginning %q", c.display, r, c.want)
			}
			for _, want := range []string{"so the desktop app cannot open.\n", "parley serve --demo", "parley --help"} {
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("DISPLAY=%q: stderr lacks %q:\n%s", c.display, want, r.Stderr)
				}
			}
			for _, bad := range []string{"panic", "goroutine", "GLFW", "glfw"} {
				if strings.Contains(r.Stderr, bad) {
					t.Errorf("DISPLAY=%q: stderr holds %q:\n%s", c.display, bad, r.Stderr)
				}
			}
		})
	}
}
