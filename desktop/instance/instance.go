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
	"strconv"
	"strings"
	"sync"
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

// Instance is the running instance's lock and listener.
type Instance struct {
	lock *os.File
	ln   net.Listener
	ep   endpoint

	mu      sync.Mutex
	handler func(Request)
	pending []Request // taken before Serve was given a handler
	closed  bool
	done    chan struct{}
}

// Claim makes this process the running instance, with its lock and listener in dir (made if
// missing, readable by its owner only). When another instance holds the lock, Claim hands it
// req and returns ErrRunning once it has acknowledged, or a *NotAnsweringError.
func Claim(dir string, req Request) (*Instance, error) {
	if !req.valid() {
		return nil, fmt.Errorf("instance: unknown request %q", req)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	if runtime.GOOS != "windows" {
		// A folder made earlier with a wider mode is made private: the socket lives there.
		if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
			os.Chmod(dir, fi.Mode().Perm()&0o700)
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "instance.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("instance: locking %s: %w", f.Name(), err)
	}
	if !held {
		pid := readPID(f)
		f.Close()
		allowForeground(pid)
		if err := handOver(dir, req, time.Now().Add(HandOverTimeout)); err != nil {
			return nil, &NotAnsweringError{PID: pid, Err: err}
		}
		return nil, ErrRunning
	}
	// The lock is ours: what an instance that ended left behind is stale.
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	inst := &Instance{lock: f, done: make(chan struct{})}
	inst.ln, inst.ep, err = listen(dir)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("instance: %w", err)
	}
	go inst.accept()
	return inst, nil
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

// Close stops listening and drops the lock.
func (i *Instance) Close() error {
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		return nil
	}
	i.closed = true
	i.mu.Unlock()
	err := i.ln.Close()
	<-i.done
	i.ep.remove()
	i.lock.Close() // closing the file drops the lock
	return err
}

// maxAnswering bounds the connections answered at once. A start of Parley sends its request
// as soon as it has connected, so when more come, the oldest (one that sends nothing, or a
// flood) is dropped to make room for the newest.
const maxAnswering = 8

// answerTimeout bounds how long one connection may take to send its request.
const answerTimeout = 500 * time.Millisecond

func (i *Instance) accept() {
	defer close(i.done)
	var mu sync.Mutex
	var open []net.Conn // the connections being answered, oldest first
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
		mu.Lock()
		if len(open) == maxAnswering {
			open[0].Close() // its answer ends at once
			open = open[1:]
		}
		open = append(open, c)
		mu.Unlock()
		go func() {
			i.answer(c)
			mu.Lock()
			defer mu.Unlock()
			for k, o := range open {
				if o == c {
					open = append(open[:k], open[k+1:]...)
					break
				}
			}
		}()
	}
}

// maxLine bounds a request line.
const maxLine = 256

// answer reads one request from c: "parley TOKEN REQUEST", and acknowledges it with "ok".
func (i *Instance) answer(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(answerTimeout))
	line, err := bufio.NewReader(&limitedReader{c, maxLine}).ReadString('\n')
	if err != nil {
		return
	}
	req, ok := parseRequest(line, i.ep.token)
	if !ok {
		fmt.Fprint(c, "refused\n")
		return
	}
	i.mu.Lock()
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
// the lock and not be listening yet.
func handOver(dir string, req Request, deadline time.Time) error {
	var last error
	for {
		last = sendRequest(dir, req, deadline)
		if last == nil || time.Now().Add(25*time.Millisecond).After(deadline) {
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
