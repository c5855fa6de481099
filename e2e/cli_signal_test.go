package e2e

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"parley/internal/testenv"
)

// Signals reach a real process only: these tests send them to the binary.

func TestCLI_InterruptExitsWith130(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on Windows")
	}
	var arrived atomic.Bool
	f := testenv.NewFakeService(t)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	waiting := make(chan struct{})
	f.Handle("GET /v1/chat/conversations", func(http.ResponseWriter, *http.Request) {
		if arrived.CompareAndSwap(false, true) {
			close(waiting)
		}
		<-stop
	})
	h := newCLIHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	cmd := h.command("conversations")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-waiting:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the request never arrived")
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if cmd.ProcessState.ExitCode() != 130 || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("after Ctrl-C: %v, exit %d, stderr %q; want 130 and 'interrupted'", err, cmd.ProcessState.ExitCode(), stderr.String())
	}
}

func TestCLI_StatusInterruptedExitsLikeEveryCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on Windows")
	}
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		t.Run(sig.String(), func(t *testing.T) {
			arrived := make(chan struct{}, 1)
			release := make(chan struct{})
			f := testenv.NewFakeService(t)
			t.Cleanup(func() { close(release) }) // before the fake closes, which waits for its handlers
			f.Handle("GET /v1/chat/conversations", func(http.ResponseWriter, *http.Request) {
				arrived <- struct{}{}
				<-release
			})
			h := newCLIHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
			cmd := h.command("status")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-arrived:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatal("status never asked the service")
			}
			cmd.Process.Signal(sig)
			if code := waitCLIExit(t, cmd, 10*time.Second); code != want || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("status stopped by %v: exit %d, stdout %q, stderr %q; want %d and 'interrupted'", sig, code, stdout.String(), stderr.String(), want)
			}
		})
	}
}

func TestCLI_ServeRunsUntilInterrupted(t *testing.T) {
	h := newCLIHome(t)
	data := filepath.Join(h.dir, "service")
	cmd := h.command("serve", "--addr", "127.0.0.1:0", "--data", data, "--demo")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	keys := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		demo := regexp.MustCompile(`^Demo key: (pk_\S+)`)
		for sc.Scan() {
			if m := demo.FindStringSubmatch(sc.Text()); m != nil {
				keys <- m[1]
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })

	var key string
	select {
	case key = <-keys:
	case err := <-exited:
		t.Fatalf("serve exited at start (%v):\n%s", err, errb.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve printed no demo key within 30 s:\n%s", errb.String())
	}
	r := h.run(t, "", "admin", "--data", data, "balance", "--key", key)
	if r.Code != 0 || r.Stdout != "1000000\n" {
		t.Errorf("admin balance of the demo key while serve runs: %s", r)
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil || !strings.Contains(errb.String(), "Parley service stopped.") {
			t.Errorf("serve after an interrupt: %v\n%s", err, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop within 30 s of an interrupt:\n%s", errb.String())
	}
}
