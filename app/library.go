package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"parley/archive"
	"parley/client"
	"parley/conversation"
)

// The conversations' archive on this computer (package archive): the names and pins a person
// gives conversations, and the index a search reads. The keeper of the window's service keeps
// it: it gives the session the labels, indexes the messages of each conversation as they are
// read or arrive, and fills the rest of the index in the background (archive.Filler), one
// polite request at a time, stopped when the window closes or the service changes, resumed at
// the next start where it stopped.

// fillAfter is how long after the window shows the background filling starts (the window's
// own first reads go first), and fillEvery how often it runs again while the window is open
// (conversations changed on another device).
const (
	fillAfter = 3 * time.Second
	fillEvery = 30 * time.Minute
)

// keeper keeps the archive of one service while its window is open.
type keeper struct {
	archive *archive.Archive
	service string // the service's name in the archive (connection.serviceKey)
	sess    *conversation.Session
	src     archive.Source
	// indexed is called (on any goroutine) after the filler indexed or dropped conversations.
	indexed func()
	// fillAfter is how long after start the filling starts (negative: never).
	fillAfter time.Duration

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	touched map[*conversation.Thread]bool    // conversations whose messages changed, to index
	labels  map[string]archive.Label         // labels to keep, by conversation ID: the last set of each
	speech  map[string]client.ConversationID // conversations whose speech settings to keep
	wake    chan struct{}
}

func newKeeper(a *archive.Archive, service string, sess *conversation.Session, src archive.Source, indexed func()) *keeper {
	ctx, cancel := context.WithCancel(context.Background())
	k := &keeper{archive: a, service: service, sess: sess, src: src, indexed: indexed, fillAfter: fillAfter, ctx: ctx, cancel: cancel,
		touched: map[*conversation.Thread]bool{}, labels: map[string]archive.Label{}, speech: map[string]client.ConversationID{},
		wake: make(chan struct{}, 1)}
	sess.KeepSpeech(k.setSpeech)
	return k
}

// start gives the session the labels kept, then indexes what changes and fills the index.
func (k *keeper) start() {
	k.wg.Add(2)
	go func() {
		defer k.wg.Done()
		k.loadLabels()
		k.indexTouched()
	}()
	go func() {
		defer k.wg.Done()
		k.fill()
	}()
}

// stop ends the keeper's work (the filler where it is: the next start goes on from there).
func (k *keeper) stop() { k.cancel() }

// wait waits for the keeper's goroutines to end after stop (tests).
func (k *keeper) wait() { k.wg.Wait() }

func (k *keeper) loadLabels() {
	labels, err := k.archive.Labels(k.service)
	if err != nil {
		slog.Warn("archive: the names and pins could not be read", "err", err)
		return
	}
	pins, err := k.archive.PinnedOf(k.service)
	if err != nil {
		slog.Warn("archive: the pinned conversations could not be read", "err", err)
	}
	out := make(map[string]conversation.Label, len(labels))
	for id, l := range labels {
		out[id] = conversation.Label{Name: l.Name, Pinned: l.Pinned}
	}
	var pinned []conversation.Entry
	for _, p := range pins {
		id, err := client.ParseConversationID(p.ID)
		if err != nil {
			continue
		}
		pinned = append(pinned, conversation.Entry{ID: id, Title: p.Title})
	}
	k.sess.SetLabels(out, pinned)
	speech, err := k.archive.SpeechOf(k.service)
	if err != nil {
		slog.Warn("archive: the conversations' voices and speech languages could not be read", "err", err)
		return
	}
	sp := make(map[string]conversation.Speech, len(speech))
	for id, s := range speech {
		sp[id] = conversation.Speech{Voice: s.Voice, Language: s.Language}
	}
	k.sess.SetSpeeches(sp)
}

// touch has th's messages indexed again (they were read, or a reply came).
func (k *keeper) touch(th *conversation.Thread) {
	k.mu.Lock()
	k.touched[th] = true
	k.mu.Unlock()
	k.wakeUp()
}

func (k *keeper) wakeUp() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// indexTouched keeps the labels set and indexes the conversations touched, one after another,
// until stop; the labels set before stop are kept then.
func (k *keeper) indexTouched() {
	for {
		select {
		case <-k.ctx.Done():
			k.keepLabels()
			return
		case <-k.wake:
		}
		k.keepLabels()
		k.mu.Lock()
		touched := k.touched
		k.touched = map[*conversation.Thread]bool{}
		k.mu.Unlock()
		for th := range touched {
			k.index(th)
		}
	}
}

// keepLabels writes the labels and speech settings set since it last ran.
func (k *keeper) keepLabels() {
	k.mu.Lock()
	labels, speech := k.labels, k.speech
	k.labels, k.speech = map[string]archive.Label{}, map[string]client.ConversationID{}
	k.mu.Unlock()
	for id, l := range labels {
		if err := k.archive.SetLabel(k.service, id, l); err != nil {
			slog.Warn("archive: a name or pin could not be kept", "err", err)
		}
	}
	for id, cid := range speech {
		// As the session has them now: the last set, whatever order they were told in.
		sp := k.sess.SpeechOf(cid)
		if err := k.archive.SetSpeech(k.service, id, archive.Speech{Voice: sp.Voice, Language: sp.Language}); err != nil {
			slog.Warn("archive: a conversation's voice or speech language could not be kept", "err", err)
		}
	}
}

// index indexes th's messages as the session has them.
func (k *keeper) index(th *conversation.Thread) {
	v := k.sess.Snapshot(th)
	if v.ID.IsZero() || v.Loading {
		return
	}
	if v.Deleted {
		k.forget(v.ID)
		return
	}
	var updated time.Time
	title := ""
	entries, _ := k.sess.Entries()
	for _, e := range entries {
		if e.ID == v.ID {
			updated, title = e.UpdatedAt, e.Title
		}
	}
	msgs := make([]archive.Message, len(v.Messages))
	for i, m := range v.Messages {
		msgs[i] = archive.Message{ID: m.ID.String(), Role: m.Role.String(), Text: m.Text, At: m.At}
	}
	if err := k.archive.Index(k.service, v.ID.String(), title, updated, msgs); err != nil {
		slog.Warn("archive: a conversation could not be indexed", "err", err)
	}
}

// forget drops what is kept of conversation id (deleted).
func (k *keeper) forget(id client.ConversationID) {
	if err := k.archive.Forget(k.service, id.String()); err != nil {
		slog.Warn("archive: a deleted conversation could not be dropped", "err", err)
	}
}

// setLabel keeps conversation id's label, in the background: the labels of one conversation
// set one after another are kept in that order (the last wins), and one set just before the
// window closes is kept too.
func (k *keeper) setLabel(id client.ConversationID, l conversation.Label) {
	k.mu.Lock()
	k.labels[id.String()] = archive.Label{Name: l.Name, Pinned: l.Pinned}
	k.mu.Unlock()
	k.wakeUp()
}

// setSpeech keeps conversation id's voice and speech language, in the background, as setLabel
// keeps a label.
func (k *keeper) setSpeech(id client.ConversationID) {
	k.mu.Lock()
	k.speech[id.String()] = id
	k.mu.Unlock()
	k.wakeUp()
}

// fill runs the filler fillAfter the start, then every fillEvery, until stop.
func (k *keeper) fill() {
	if k.fillAfter < 0 {
		return
	}
	f := &archive.Filler{Archive: k.archive, Service: k.service, Source: k.src, Changed: k.indexed}
	wait := k.fillAfter
	for {
		t := time.NewTimer(wait)
		select {
		case <-k.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if _, err := f.Run(k.ctx); err != nil && k.ctx.Err() == nil && err != archive.ErrBudget {
			slog.Info("archive: filling the search index stopped; it goes on later", "err", err)
		}
		wait = fillEvery
	}
}

// search finds the messages with the words of query, for the service in use.
func (k *keeper) search(query string, limit int) ([]archive.Hit, error) {
	return k.archive.Search(k.service, query, limit)
}

// searchMessages finds the messages with the words of query in the archive, in the background,
// leaving out the conversations deleted and not yet gone (Undo); done gets them on the window's
// goroutine, nothing when the archive cannot be read.
func (m *mainWindow) searchMessages(query string, done func([]archive.Hit)) {
	if m.keeper == nil {
		return
	}
	k := m.keeper
	go func() {
		hits, err := k.search(query, maxMessageHits)
		if err != nil {
			slog.Warn("archive: a search failed", "err", err)
		}
		m.u.do(func() {
			if m.u.main != m {
				return
			}
			kept := hits[:0]
			for _, h := range hits {
				if m.pendingDeletes[h.Conversation] == nil {
					kept = append(kept, h)
				}
			}
			done(kept)
		})
	}()
}

// openAt shows conversation id at its message number message (a search found it there).
func (m *mainWindow) openAt(id client.ConversationID, message int) {
	if m.current != nil && m.sess.ID(m.current) == id {
		m.fold.chosen()
		m.chat.ScrollToMessage(message)
		return
	}
	m.showAt(m.sess.Open(id), message)
}
