// Package instance keeps one desktop app running per person: the first Parley to start holds a
// lock and listens for the others; a later one hands its request over to it and exits. The lock
// is one the operating system drops when its process ends, so that a crashed instance never
// blocks the next start.
package instance

import (
	"bufio"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Request is what a later start asks of the running instance.
type Request string

const (
	// Show asks the running instance to show and raise its window (parley with no arguments).
	Show Request = "show"
	// Background asks nothing of it: a start at login finds Parley running already.
	Background Request = "background"
)

// valid reports whether r is a request this version understands.
func (r Request) valid() bool { return r == Show || r == Background }

// ErrRunning is returned by Claim when another instance runs and took the request.
var ErrRunning = errors.New("parley is running already")

// NotAnsweringError is returned by Claim when another instance holds the lock but did not take
// the request in time (it may be starting, or hung).
type NotAnsweringError struct {
	PID int // the other instance's process, when it wrote it (0: unknown)
	Err error
}

func (e *NotAnsweringError) Error() string {
	return fmt.Sprintf("%s holds the lock but did not answer: %v", e.Who(), e.Err)
}

// Who names the other instance for a person: "another Parley (process 123)".
func (e *NotAnsweringError) Who() string {
	if e.PID > 0 {
		return fmt.Sprintf("another Parley (process %d)", e.PID)
	}
	return "another Parley"
}

func (e *NotAnsweringError) Unwrap() error { return e.Err }

// HandOverTimeout bounds how long Claim tries to reach the running instance.
const HandOverTimeout = 900 * time.Millisecond

// Instance is the running instance's locks and listener.
type Instance struct {
	locks []*os.File // one in each folder it could take, the first where it listens
	ln    net.Listener
	ep    endpoint

	mu      sync.Mutex
	handler func(Request)
	pending []Request     // taken before Serve was given a handler
	closed  bool          // Close has begun: no request is taken any more
	done    chan struct{} // closed when the listener has stopped accepting
	ended   chan struct{} // closed when Close has finished
}

// NoLockError is returned by ClaimIn when none of its folders could hold the lock, so that
// nothing can tell whether Parley runs already.
type NoLockError struct {
	Dirs []string // the folders tried
	Err  error    // why the last could not hold it
}

func (e *NoLockError) Error() string {
	return fmt.Sprintf("no folder could hold the lock (%s): %v", strings.Join(e.Dirs, ", "), e.Err)
}

func (e *NoLockError) Unwrap() error { return e.Err }

// Dirs are the folders a desktop Parley keeps its lock and socket in, in the order ClaimIn
// tries them: $XDG_RUNTIME_DIR/parley when XDG_RUNTIME_DIR names a folder of this user that only
// they can open (as the XDG Base Directory Specification promises; it is also where a config
// folder that cannot be written does not matter), then parley in the user's config folder.
func Dirs() []string { return dirs(os.Getenv, os.UserConfigDir) }

func dirs(getenv func(string) string, configDir func() (string, error)) []string {
	var out []string
	if rt := getenv("XDG_RUNTIME_DIR"); runtime.GOOS != "windows" && filepath.IsAbs(rt) && ownedPrivateDir(rt) == nil {
		out = append(out, filepath.Join(rt, "parley"))
	}
	if dir, err := configDir(); err == nil && filepath.IsAbs(dir) {
		out = append(out, filepath.Join(dir, "parley"))
	}
	return out
}

// Claim is ClaimIn with one folder.
func Claim(dir string, req Request) (*Instance, error) { return ClaimIn([]string{dir}, req) }

// ClaimIn makes this process the running instance: it takes the lock in each of dirs it can
// (each made if missing, readable by its owner only) and listens in the first. When another
// instance holds the lock in any of them, ClaimIn hands it req and returns ErrRunning once it
// has acknowledged, or a *NotAnsweringError; when the holder lets the lock go instead of
// answering (it was closing), ClaimIn begins again. Taking every folder's lock keeps one Parley
// even for starts that see different folders (one with XDG_RUNTIME_DIR set, one without). When
// no folder can hold the lock, it returns a *NoLockError.
func ClaimIn(dirs []string, req Request) (*Instance, error) {
	if !req.valid() {
		return nil, fmt.Errorf("instance: unknown request %q", req)
	}
	// The instance holding the lock may be closing: it no longer answers, and lets the lock go
	// an instant later. The start then begins again, and becomes the running instance.
	for n := 1; ; n++ {
		inst, err := claimIn(dirs, req)
		if n < maxClaims && errors.Is(err, errHolderEnded) {
			continue
		}
		return inst, err
	}
}

// maxClaims bounds how often ClaimIn begins again after the instance holding the lock ended
// while it was being asked.
const maxClaims = 3

// errHolderEnded is returned by handOver when the lock it was asking the holder of was let go
// (the holder was closing).
var errHolderEnded = errors.New("the instance holding the lock ended")

func claimIn(dirs []string, req Request) (*Instance, error) {
	var held []*os.File
	var heldDirs []string
	release := func() {
		for _, f := range held {
			f.Close() // closing the file drops the lock
		}
	}
	var lastErr error = errors.New("no folder was given")
	for _, dir := range dirs {
		f, err := openLock(dir)
		if err != nil {
			lastErr = err
			continue
		}
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			lastErr = fmt.Errorf("locking %s: %w", f.Name(), err)
			continue
		}
		if !ok {
			release()
			pid := readPID(f)
			allowForeground(pid)
			// Between tries, whether the holder let the lock go: an instance that is closing
			// stops answering before it does.
			freed := func() bool { ok, err := tryLock(f); return ok && err == nil }
			err := handOver(dir, req, time.Now().Add(HandOverTimeout), freed)
			f.Close()
			if err != nil {
				return nil, &NotAnsweringError{PID: pid, Err: err}
			}
			return nil, ErrRunning
		}
		held, heldDirs = append(held, f), append(heldDirs, dir)
	}
	if len(held) == 0 {
		return nil, &NoLockError{Dirs: dirs, Err: lastErr}
	}
	// The locks are ours: what an instance that ended left behind is stale.
	for _, f := range held {
		f.Truncate(0)
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	ln, ep, err := listen(heldDirs[0])
	if err != nil {
		release()
		return nil, fmt.Errorf("instance: %w", err)
	}
	// The other folders point a later start at the same listener. One whose address file
	// cannot be written is let go: a start that finds its lock held must find the address too.
	locks := held[:1]
	for k := 1; k < len(held); k++ {
		if ep.alsoIn(heldDirs[k]) != nil {
			held[k].Close()
			continue
		}
		locks = append(locks, held[k])
	}
	inst := &Instance{locks: locks, ln: ln, ep: ep, done: make(chan struct{}), ended: make(chan struct{})}
	go inst.accept()
	return inst, nil
}

// openLock opens the lock file in dir, making dir (private) if needed.
func openLock(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" {
		// A folder made earlier with a wider mode is made private: the socket lives there.
		if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
			os.Chmod(dir, fi.Mode().Perm()&0o700)
		}
	}
	return os.OpenFile(filepath.Join(dir, "instance.lock"), os.O_RDWR|os.O_CREATE, 0o600)
}

// Serve has handle called, on its own goroutine, with each request of a later start (and with
// those taken since Claim). It is called once.
func (i *Instance) Serve(handle func(Request)) {
	i.mu.Lock()
	i.handler = handle
	pending := i.pending
	i.pending = nil
	i.mu.Unlock()
	for _, r := range pending {
		go handle(r)
	}
}

// Close stops listening and drops the lock. From the moment it is called no request is taken
// (one being read is refused), so that the app can call it as it begins to close, on a goroutine
// of its own; a later call waits for the first to finish.
func (i *Instance) Close() error {
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		<-i.ended
		return nil
	}
	i.closed = true
	i.mu.Unlock()
	defer close(i.ended)
	err := i.ln.Close()
	<-i.done
	i.ep.remove()
	for _, f := range i.locks {
		f.Close() // closing the file drops the lock
	}
	return err
}

// maxAnswering bounds the connections answered at once. When more come, one that has sent
// nothing is dropped to make room (the oldest such), so that silent connections, however many
// are opened, cannot keep a start of Parley, which sends its request as it connects, from
// being answered.
const maxAnswering = 8

// firstByteTimeout bounds how long a connection may stay silent. A start of Parley sends its
// request as it connects, but on a loaded machine the bytes can come late; silent connections
// are dropped first when the slots fill, so this only needs to outlast the start's own wait
// (HandOverTimeout).
const firstByteTimeout = time.Second

// answerTimeout bounds how long one connection may take to send its whole request.
const answerTimeout = 500 * time.Millisecond

// caller is a connection being answered.
type caller struct {
	c    net.Conn
	sent atomic.Bool // its request has begun to arrive
}

// silent reports whether the caller has sent nothing yet, looking at the socket itself: its
// reader may not have run since the bytes came.
func (k *caller) silent() bool {
	if k.sent.Load() {
		return false
	}
	if hasData(k.c) {
		k.sent.Store(true)
		return false
	}
	return true
}

func (i *Instance) accept() {
	defer close(i.done)
	var mu sync.Mutex
	var open []*caller // the connections being answered, oldest first
	for {
		c, err := i.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of file handles, or a connection reset before it was taken: the listener
			// is still good, and a later start must find it answering.
			time.Sleep(50 * time.Millisecond)
			continue
		}
		k := &caller{c: c}
		mu.Lock()
		if len(open) == maxAnswering {
			drop := 0 // all have sent something: the oldest, which had the longest
			for n, o := range open {
				if o.silent() {
					drop = n
					break
				}
			}
			open[drop].c.Close() // its answer ends at once
			open = slices.Delete(open, drop, drop+1)
		}
		open = append(open, k)
		mu.Unlock()
		go func() {
			i.answer(k)
			mu.Lock()
			defer mu.Unlock()
			if n := slices.Index(open, k); n >= 0 {
				open = slices.Delete(open, n, n+1)
			}
		}()
	}
}

// maxLine bounds a request line.
const maxLine = 256

// answer reads one request from k: "parley TOKEN REQUEST", and acknowledges it with "ok".
func (i *Instance) answer(k *caller) {
	c := k.c
	defer c.Close()
	c.SetDeadline(time.Now().Add(firstByteTimeout))
	r := bufio.NewReader(&limitedReader{c, maxLine})
	if _, err := r.Peek(1); err != nil {
		return
	}
	k.sent.Store(true)
	c.SetDeadline(time.Now().Add(answerTimeout))
	line, err := r.ReadString('\n')
	if err != nil {
		return
	}
	req, ok := parseRequest(line, i.ep.token)
	if !ok {
		fmt.Fprint(c, "refused\n")
		return
	}
	i.mu.Lock()
	if i.closed {
		// This Parley is closing: the start must not be told it was shown. It finds the
		// lock free an instant later and runs instead (ClaimIn).
		i.mu.Unlock()
		return
	}
	h := i.handler
	if h == nil {
		i.pending = append(i.pending, req)
	}
	i.mu.Unlock()
	if h != nil {
		go h(req)
	}
	fmt.Fprint(c, "ok\n")
}

// parseRequest reads a request line: "parley", the token (on systems where the listener is
// reachable by others), and the request.
func parseRequest(line, token string) (Request, bool) {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "parley" || subtle.ConstantTimeCompare([]byte(f[1]), []byte(token)) != 1 {
		return "", false
	}
	r := Request(f[2])
	return r, r.valid()
}

// handOver sends req to the running instance, trying again until deadline: it may have taken
// the lock and not be listening yet. When a try fails and freed reports that the lock was let
// go, it returns errHolderEnded (wrapping the try's error).
func handOver(dir string, req Request, deadline time.Time, freed func() bool) error {
	var last error
	for {
		last = sendRequest(dir, req, deadline)
		if last == nil {
			return nil
		}
		if freed() {
			return fmt.Errorf("%w (%w)", errHolderEnded, last)
		}
		if time.Now().Add(25 * time.Millisecond).After(deadline) {
			return last
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func sendRequest(dir string, req Request, deadline time.Time) error {
	ep, err := findEndpoint(dir)
	if err != nil {
		return err
	}
	c, err := net.DialTimeout(ep.network, ep.address, time.Until(deadline))
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(deadline)
	if _, err := fmt.Fprintf(c, "parley %s %s\n", ep.token, req); err != nil {
		return err
	}
	ack, err := bufio.NewReader(&limitedReader{c, maxLine}).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(ack) != "ok" {
		return fmt.Errorf("it answered %q", strings.TrimSpace(ack))
	}
	return nil
}

// readPID reads the process number the lock's holder wrote.
func readPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}

// limitedReader reads at most n bytes from r, then reports EOF.
type limitedReader struct {
	r net.Conn
	n int
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("request too long")
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= n
	return n, err
}
