package app

import (
	"bufio"
	"fmt"
	"os"
	"sync"
	"time"
)

// ProbeEnv names a file to which the app writes what the README's performance table measures
// of its window, one JSON object a line: each message sent ("sent"), each time a reply being
// written grows on screen ("grew") or a whole reply is shown ("replied"), and, every 20 ms, how
// long a call handed to the window's goroutine waited to run ("ui_wait", with "ms"): the time
// the window was busy laying out and drawing, a frame's time near enough. Unset, nothing is
// measured.
const ProbeEnv = "PARLEY_UI_PROBE"

// probe writes ProbeEnv's file; a nil probe does nothing.
type probe struct {
	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	start time.Time
	stop  chan struct{}
}

// newProbe opens the file getenv names, nil when none is named (or it cannot be written).
func newProbe(getenv func(string) string, do func(func())) *probe {
	path := getenv(ProbeEnv)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil
	}
	p := &probe{f: f, w: bufio.NewWriter(f), start: time.Now(), stop: make(chan struct{})}
	go p.watch(do)
	return p
}

// event writes an event now.
func (p *probe) event(name string) {
	if p == nil {
		return
	}
	p.write(fmt.Sprintf(`{"t_ms":%.1f,"event":%q}`, p.ms(time.Now()), name))
}

func (p *probe) ms(t time.Time) float64 { return float64(t.Sub(p.start).Microseconds()) / 1000 }

func (p *probe) write(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		p.w.WriteString(line + "\n")
	}
}

// watch hands the window's goroutine a call every 20 ms, and writes how long each waited.
func (p *probe) watch(do func(func())) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	flush := time.NewTicker(time.Second)
	defer flush.Stop()
	pending := make(chan struct{}, 1)
	for {
		select {
		case <-p.stop:
			return
		case <-flush.C:
			p.mu.Lock()
			if p.w != nil {
				p.w.Flush()
			}
			p.mu.Unlock()
		case <-t.C:
			select {
			case pending <- struct{}{}:
			default:
				continue // the last one has not run yet: its wait is still being measured
			}
			asked := time.Now()
			do(func() {
				now := time.Now()
				p.write(fmt.Sprintf(`{"t_ms":%.1f,"event":"ui_wait","ms":%.2f}`, p.ms(now), float64(now.Sub(asked).Microseconds())/1000))
				<-pending
			})
		}
	}
}

// close ends the measuring and writes what is left.
func (p *probe) close() {
	if p == nil {
		return
	}
	close(p.stop)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.w.Flush()
	p.f.Close()
	p.w = nil
}
