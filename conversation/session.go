package conversation

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"parley/client"
	"parley/internal/i18n"
)

// Change tells the window what to render again; it is sent after the state changed, on the
// goroutine that changed it (never holding the session's lock).
type Change struct {
	// List: the conversation list changed.
	List bool
	// Thread, when not nil, is the conversation whose messages or turns changed.
	Thread *Thread
	// Usage: the points charged or the balance changed.
	Usage bool
	// Err, when not nil, is why the conversation list could not be read. (A failed turn carries
	// its own error; deleting and saving settings report to their callers.)
	Err error
	// Ended are the turns of Thread that ended with this change, by the key Send returned: a
	// voice turn waits for its key here, instead of guessing its reply from the messages.
	Ended []Outcome
	// Growing: only the partial reply (Turn.Partial) of Thread's turn being answered grew.
	Growing bool
}

// Outcome is how a turn ended.
type Outcome struct {
	// Key is the turn's key, as Send returned it.
	Key int64
	// End says how it ended.
	End End
	// Reply is the reply (End == Replied).
	Reply Message
	// Stopped: the reply is a streamed one the person stopped: what the model wrote until then.
	Stopped bool
	// Err is why there is no reply (End == NoReply or Stopped). State is then the turn's state:
	// Lost when the message may have been charged, Failed when not (and for a turn taken back
	// or whose conversation was deleted).
	Err   error
	State TurnState
}

// End says how a turn ended.
type End int

// The ends of a turn.
const (
	// Replied: the reply came, or a history read after the reply was lost shows it.
	Replied End = iota + 1
	// NoReply: the call failed, the turn was taken back before it was sent (ErrWithdrawn), or
	// its conversation was deleted (ErrDeleted). A Lost turn may still end Replied later, when
	// a history read shows it answered; a turn the person sends again (Retry) ends again.
	NoReply
	// Stopped: the person stopped waiting (ErrStopped). Its call still runs: a reply may still
	// end it Replied.
	Stopped
)

// ErrWithdrawn is the error of a turn taken back (TakeUnsent) before it was sent.
var ErrWithdrawn = errors.New("the message was taken back before it was sent")

// ErrDeleted is the error of a turn whose conversation was deleted before its reply came.
var ErrDeleted = errors.New("the conversation was deleted")

// Thread is one conversation as the window shows it: the messages the service confirmed, the
// turns waiting for a reply or failed, and its settings. A new conversation is a Thread with no
// ID until its first reply arrives; the same Thread then carries the ID, so a window holding it
// keeps showing it. Read it only through Session.Snapshot.
type Thread struct {
	id       client.ConversationID
	messages []Message
	turns    []*Turn
	config   client.Config // saved settings (existing) or first-call settings (new)
	// speech is how a new conversation is heard and spoken until it has an ID; the session's
	// speech map holds an existing one's.
	speech Speech

	// sending is the turn whose chat call is under way (it may be shown as stopped: the
	// person stopped waiting, and its reply is still taken when it comes).
	sending *Turn
	// stale: a reply was lost or stopped, so the service may hold more than was read; the
	// history is read again when the conversation is opened.
	stale bool

	loaded  bool  // the history was read (always true for a new conversation)
	loading bool  // a history read is under way
	loadErr error // why the last history read failed
	deleted bool
}

// Entry is one conversation of the list.
type Entry struct {
	// ID identifies the conversation.
	ID client.ConversationID
	// Title is the service's title, else the first words of the first message, else "".
	Title string
	// UpdatedAt is when it last changed (else when it was created); zero when unknown.
	UpdatedAt time.Time
	// Name is the person's name for it on this computer ("" none); Pinned: they pinned it.
	Name   string
	Pinned bool
}

// DisplayTitle is the title to show: the person's Name, else Title, else DefaultTitle in the
// window's language (Untitled tells that case).
func (e Entry) DisplayTitle() string {
	if e.Name != "" {
		return e.Name
	}
	if e.Title != "" {
		return e.Title
	}
	return i18n.T("New conversation")
}

// Untitled reports whether e has neither a name nor a title, so that DisplayTitle is
// DefaultTitle's words.
func (e Entry) Untitled() bool { return e.Name == "" && e.Title == "" }

// ThreadView is a copy of a Thread's state for rendering.
type ThreadView struct {
	// ID is the conversation's ID; zero for a conversation not yet created.
	ID client.ConversationID
	// Messages are the confirmed messages, oldest first.
	Messages []Message
	// Turns are the person's messages without a reply yet, or whose send failed, in order.
	Turns []Turn
	// Config is the saved settings, or for a new conversation the settings its first call sends.
	Config client.Config
	// Voice is the voice replies are spoken with ("" for the default).
	Voice string
	// SpeechLanguage is the language its questions are spoken in, as the person chose it ("" for
	// the recogniser to tell).
	SpeechLanguage string
	// Loading is true while the history is being read; LoadErr is why reading it failed.
	Loading bool
	LoadErr error
	// Deleted is true once the conversation was deleted.
	Deleted bool
}

// Waiting reports whether a reply is awaited.
func (v ThreadView) Waiting() bool {
	for _, t := range v.Turns {
		if t.State == Sending || t.State == Queued {
			return true
		}
	}
	return false
}

// Session is the app's state over one service: the conversation list, the threads opened, the
// turns in flight and the points reported. Its methods are safe for concurrent use; slow work
// runs on goroutines of its own, and every change is reported through the onChange callback.
type Session struct {
	svc      Service
	onChange func(Change)
	ctx      context.Context
	cancel   context.CancelFunc
	now      func() time.Time

	mu       sync.Mutex
	entries  []Entry // newest first
	cursor   string
	listDone bool // every page was read
	listing  bool
	listErr  error
	pages    int                // pages read since the first
	threads  map[string]*Thread // by conversation ID
	labels   map[string]Label   // the person's names and pins, by conversation ID
	speech   map[string]Speech  // the person's voices and speech languages, by conversation ID
	keep     func(client.ConversationID)
	pinned   []Entry         // pinned conversations known here, shown first until a complete list lacks them
	hidden   map[string]bool // conversations out of the list (a delete not yet done)
	nextKey  int64
	charged  *int64
	balance  *int64
}

// NewSession returns a session over svc; onChange is called after every change (not on any
// particular goroutine). Close ends its background work.
func NewSession(svc Service, onChange func(Change)) *Session {
	ctx, cancel := context.WithCancel(context.Background())
	if onChange == nil {
		onChange = func(Change) {}
	}
	return &Session{svc: svc, onChange: onChange, ctx: ctx, cancel: cancel, now: time.Now, threads: map[string]*Thread{}}
}

// SetClock sets the clock that dates the messages sent (for tests; the default is time.Now).
// Call it before the session is used.
func (s *Session) SetClock(now func() time.Time) { s.now = now }

// Close cancels the session's background work. A chat call already sent is not waited for.
func (s *Session) Close() { s.cancel() }

// NewThread returns a new, empty conversation that will be created by its first message, with
// the settings its first call sends.
func (s *Session) NewThread(cfg client.Config, voice string) *Thread {
	return &Thread{config: cfg, speech: Speech{Voice: voice}, loaded: true}
}

// Snapshot returns a copy of th's state.
func (s *Session) Snapshot(th *Thread) ThreadView {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.speechOf(th)
	v := ThreadView{ID: th.id, Messages: append([]Message(nil), th.messages...), Config: th.config, Voice: sp.Voice,
		SpeechLanguage: sp.Language, Loading: th.loading, LoadErr: th.loadErr, Deleted: th.deleted}
	for _, t := range th.turns {
		v.Turns = append(v.Turns, *t)
	}
	return v
}

// ID returns th's conversation ID (zero for a conversation not created yet) without copying
// its messages, as Snapshot does.
func (s *Session) ID(th *Thread) client.ConversationID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return th.id
}

// Usage returns the points charged by the last chat call and the balance, when reported.
func (s *Session) Usage() (charged, balance *int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.charged, s.balance
}

// SetBalance records a balance read elsewhere (the account endpoint).
func (s *Session) SetBalance(b int64) {
	s.mu.Lock()
	s.balance = &b
	s.mu.Unlock()
	s.onChange(Change{Usage: true})
}

// Open returns the thread of conversation id, reading its history if it was not read yet.
func (s *Session) Open(id client.ConversationID) *Thread {
	s.mu.Lock()
	th := s.threads[id.String()]
	if th == nil {
		th = &Thread{id: id}
		s.threads[id.String()] = th
	}
	start := (!th.loaded || th.stale && th.sending == nil) && !th.loading
	if start {
		th.loading, th.loadErr = true, nil
	}
	s.mu.Unlock()
	if start {
		go s.load(th, id)
	}
	return th
}

// Reload reads th's history again (after a lost reply, to show what the service stored).
func (s *Session) Reload(th *Thread) {
	s.mu.Lock()
	id := th.id
	start := !id.IsZero() && !th.loading && !th.deleted
	if start {
		th.loading, th.loadErr = true, nil
	}
	s.mu.Unlock()
	if start {
		go s.load(th, id)
		s.onChange(Change{Thread: th})
	}
}

func (s *Session) load(th *Thread, id client.ConversationID) {
	h, err := s.svc.History(s.ctx, id)
	var ended []Outcome
	s.mu.Lock()
	th.loading = false
	var ae *client.Error
	switch {
	case errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound:
		// Deleted elsewhere (another device, or the service's own clean-up): it leaves the
		// list, and its window says so.
		th.loadErr = err
		if th.sending == nil {
			th.deleted = true
			delete(s.threads, id.String())
			s.drop(id)
		}
	case err != nil:
		th.loadErr = err
	default:
		th.loaded = true
		th.config = h.Config
		th.messages = th.messages[:0]
		for _, m := range h.Messages {
			th.messages = append(th.messages, MessageFrom(m))
		}
		// A lost turn the history does not show answered may still be: read it again at the
		// next Open.
		th.stale, ended = th.settleLost()
		s.titleFromThread(th)
	}
	s.mu.Unlock()
	s.onChange(Change{Thread: th, List: err == nil, Ended: ended})
}

// settleLost removes the lost turns whose message the history shows answered: a user message
// with the turn's text, after the messages known when it was sent, followed by a reply. The
// service's interface has no way to name a call, so this is how a reply that came after the
// person stopped waiting for it (or after the connection failed) is told from a message never
// stored. Call with s.mu held.
// It reports whether a lost turn is left unsettled, and the turns it settled, with their replies.
func (th *Thread) settleLost() (unsettled bool, ended []Outcome) {
	kept := th.turns[:0]
	for _, t := range th.turns {
		if t.State == Lost && t != th.sending {
			if reply, ok := th.answered(t); ok {
				ended = append(ended, Outcome{Key: t.Key, End: Replied, Reply: reply})
				continue
			}
			unsettled = true
		}
		kept = append(kept, t)
	}
	clear(th.turns[len(kept):])
	th.turns = kept
	return unsettled, ended
}

// answered reports whether th's messages hold t's message and a reply after it, later than
// the messages known when t was sent, and returns the reply.
func (th *Thread) answered(t *Turn) (Message, bool) {
	if !t.anchored {
		return Message{}, false
	}
	from := t.known
	if !t.after.IsZero() {
		from = -1
		for i, m := range th.messages {
			if m.ID == t.after {
				from = i + 1
			}
		}
		if from < 0 {
			return Message{}, false // the history no longer reaches back to where t was sent
		}
	}
	for i := from; i+1 < len(th.messages); i++ {
		if m := th.messages[i]; m.Role == User && strings.TrimSpace(m.Text) == t.Text && th.messages[i+1].Role == Assistant {
			return th.messages[i+1], true
		}
	}
	return Message{}, false
}

// titleFromThread gives th's list entry a title from its first message when the service gave
// none. Call with s.mu held.
func (s *Session) titleFromThread(th *Thread) {
	if len(th.messages) == 0 {
		return
	}
	for i := range s.entries {
		if s.entries[i].ID == th.id && s.entries[i].Title == "" {
			s.entries[i].Title = TitleFrom(th.messages[0].Text)
		}
	}
}

// Send adds text as a new turn of th and sends it once the turns before it have their replies.
// It returns the turn's key, which the change that ends the turn carries in Ended; blank text is
// ignored (key 0). For a new conversation, the first call carries th's settings.
func (s *Session) Send(th *Thread, text string) int64 {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0
	}
	s.mu.Lock()
	s.nextKey++
	key := s.nextKey
	th.turns = append(th.turns, &Turn{Key: key, Text: text, At: s.now(), State: Queued})
	next := s.nextTurn(th)
	s.mu.Unlock()
	s.onChange(Change{Thread: th})
	if next != nil {
		go s.send(th, next)
	}
	return key
}

// Retry sends a failed turn again; this is the person asking, so a Lost turn may be re-sent too,
// but not one the service answered and charged for (client.ErrReplyUnreadable): that would charge
// twice for one question. Such a turn is edited and sent as a new message, or dismissed.
func (s *Session) Retry(th *Thread, key int64) {
	s.mu.Lock()
	for _, t := range th.turns {
		if t.Key == key && (t.State == Failed || t.State == Lost) && !t.Answering && !errors.Is(t.Err, client.ErrReplyUnreadable) {
			t.State, t.Err = Queued, nil
		}
	}
	next := s.nextTurn(th)
	s.mu.Unlock()
	s.onChange(Change{Thread: th})
	if next != nil {
		go s.send(th, next)
	}
}

// ErrStopped marks a turn whose reply the person stopped waiting for. With Lost the message
// had left: the service may still answer and charge; while its call still runs (Answering),
// the reply is added when it comes, and a conversation created by it joins the list. With Failed
// it had not left: nothing was charged.
var ErrStopped = errors.New("stopped waiting for the reply")

// errStillAnswering is the cause of a stopped turn whose call still runs.
var errStillAnswering = errors.New("the message was sent; its reply is still taken if the service answers")

// stoppedError is the error of a stopped turn: it matches ErrStopped and keeps its cause.
type stoppedError struct{ cause error }

func (e *stoppedError) Error() string   { return ErrStopped.Error() + ": " + e.cause.Error() }
func (e *stoppedError) Unwrap() []error { return []error{ErrStopped, e.cause} }

// StopWaiting stops waiting for the reply to th's message being sent, and reports whether one
// was. The turn is shown Lost with ErrStopped at once (Answering), and it is never sent again by
// itself. The call is not cancelled: the message has left (the service charges for its reply
// whether or not anyone waits), so the reply, when it comes, is added to th, and a new
// conversation joins the list, as the person was told. If the call fails instead, the turn stays
// Lost (or Failed, when nothing was charged) for the person to send again or edit.
func (s *Session) StopWaiting(th *Thread) bool {
	s.mu.Lock()
	t := th.sending
	if t == nil || t.State != Sending {
		s.mu.Unlock()
		return false
	}
	if t.stop != nil {
		// A streamed reply: the service is asked to end it where it is, and what was written is
		// the reply (charged), or nothing was and it is refunded. Should the service not end it
		// soon (the stop was lost), the person stops waiting as for any reply.
		if !t.Stopping {
			t.Stopping = true
			close(t.stop)
			stop := t.stop
			time.AfterFunc(stopGrace, func() {
				s.mu.Lock()
				same := t.stop == stop // not ended, nor sent again since
				s.mu.Unlock()
				if same {
					s.stopWaiting(th, t)
				}
			})
		}
		s.mu.Unlock()
		s.onChange(Change{Thread: th})
		return true
	}
	s.mu.Unlock()
	return s.stopWaiting(th, t)
}

// StopTurn is StopWaiting for th's turn key only: nothing is stopped when another turn of th is
// being answered (voice mode stops its own question's reply, not a typed one before it).
func (s *Session) StopTurn(th *Thread, key int64) bool {
	s.mu.Lock()
	t := th.sending
	s.mu.Unlock()
	if t == nil || t.Key != key {
		return false
	}
	return s.StopWaiting(th)
}

// stopGrace is how long a streamed reply the person stopped may take to end before they stop
// waiting for it instead.
var stopGrace = 5 * time.Second

// stopWaiting stops waiting for t's reply, if t is still th's turn being answered.
func (s *Session) stopWaiting(th *Thread, t *Turn) bool {
	s.mu.Lock()
	if th.sending != t || t.State != Sending {
		s.mu.Unlock()
		return false
	}
	t.State, t.Err, t.Answering = Lost, &stoppedError{cause: errStillAnswering}, true
	ended := Outcome{Key: t.Key, End: Stopped, Err: t.Err, State: Lost}
	s.mu.Unlock()
	s.onChange(Change{Thread: th, Ended: []Outcome{ended}})
	return true
}

// call makes t's chat call: streamed from a service that streams, with t.Partial growing as the
// reply is written (Change.Growing, at most every growEvery) and t.stop for the person's Stop.
func (s *Session) call(th *Thread, t *Turn, req client.SendMessageRequest) (*client.SendMessageResult, error) {
	ss, ok := s.svc.(StreamingService)
	if !ok || !ss.Streams() {
		return s.svc.SendMessage(s.ctx, req)
	}
	stop := make(chan struct{})
	partial := &strings.Builder{} // appended to, not copied, piece by piece
	s.mu.Lock()
	t.stop, t.partial = stop, partial
	s.mu.Unlock()
	var last time.Time
	pending := false
	tell := func() {
		s.mu.Lock()
		pending = false
		last = time.Now()
		s.mu.Unlock()
		s.onChange(Change{Thread: th, Growing: true})
	}
	return ss.SendMessageStream(s.ctx, req, client.StreamOptions{Stop: stop, OnText: func(piece string) {
		s.mu.Lock()
		if th.sending != t || t.partial != partial {
			s.mu.Unlock()
			return
		}
		partial.WriteString(piece)
		t.Partial = partial.String()
		wait := growEvery - time.Since(last)
		now := !pending && wait <= 0
		later := !pending && wait > 0
		pending = pending || later
		s.mu.Unlock()
		switch {
		case now:
			tell()
		case later:
			time.AfterFunc(wait, tell)
		}
	}})
}

// growEvery is how often, at most, a growing reply is told to the window: often enough to
// read as it is written, seldom enough that laying it out costs little.
const growEvery = 50 * time.Millisecond

// Dismiss removes a failed turn and returns its text, for the composer.
func (s *Session) Dismiss(th *Thread, key int64) string {
	s.mu.Lock()
	var text string
	for i, t := range th.turns {
		if t.Key == key && (t.State == Failed || t.State == Lost) && !t.Answering {
			// A stopped turn whose call still runs stays until the call ends: it holds the
			// next message, so that a new conversation is never made twice.
			text = t.Text
			th.turns = append(th.turns[:i], th.turns[i+1:]...)
			break
		}
	}
	next := s.nextTurn(th)
	s.mu.Unlock()
	s.onChange(Change{Thread: th})
	if next != nil {
		go s.send(th, next)
	}
	return text
}

// Opened is every conversation opened or created in this session, in no order.
func (s *Session) Opened() []*Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Thread, 0, len(s.threads))
	for _, th := range s.threads {
		out = append(out, th)
	}
	return out
}

// TakeUnsent removes th's turns that never reached the service (queued, or failed) and returns
// their texts in order, sending nothing: for a conversation the person leaves before it exists.
// A turn being sent, or lost after it was sent (it may have been charged), stays.
func (s *Session) TakeUnsent(th *Thread) []string {
	s.mu.Lock()
	var texts []string
	var ended []Outcome
	kept := th.turns[:0]
	for _, t := range th.turns {
		if t.State == Sending || t.State == Lost {
			kept = append(kept, t)
			continue
		}
		texts = append(texts, t.Text)
		if t.State == Queued { // a failed turn's end was told when it failed
			ended = append(ended, Outcome{Key: t.Key, End: NoReply, Err: ErrWithdrawn, State: Failed})
		}
	}
	clear(th.turns[len(kept):])
	th.turns = kept
	s.mu.Unlock()
	if len(texts) > 0 {
		s.onChange(Change{Thread: th, Ended: ended})
	}
	return texts
}

// nextTurn marks the first queued turn of th as sending and returns it, unless a turn is
// already sending or an earlier one failed (later turns wait for the person to retry or dismiss
// it, so replies keep the order in which things were said). Call with s.mu held.
func (s *Session) nextTurn(th *Thread) *Turn {
	if th.deleted {
		return nil
	}
	for _, t := range th.turns {
		switch t.State {
		case Sending, Failed, Lost:
			return nil
		case Queued:
			t.State = Sending
			return t
		}
	}
	return nil
}

// send makes the chat call of turn t. It is never repeated here: a failure leaves the turn
// Failed or Lost, with its text, for the person to decide.
func (s *Session) send(th *Thread, t *Turn) {
	s.mu.Lock()
	req := client.SendMessageRequest{ConversationID: th.id, Message: t.Text}
	if th.id.IsZero() {
		cfg := th.config
		req.Persona, req.Temperature, req.TopP, req.MaxTokens = cfg.Persona, cfg.Temperature, cfg.TopP, cfg.MaxTokens
	}
	th.sending = t
	// Where the conversation stood, to know this message again in a history read later; only
	// when its history was read (else an older identical question could be taken for it).
	t.anchored = th.loaded && !th.loading && th.loadErr == nil
	if n := len(th.messages); n > 0 {
		t.after, t.known = th.messages[n-1].ID, n
	}
	s.mu.Unlock()

	res, err := s.call(th, t, req)

	s.mu.Lock()
	th.sending = nil
	t.stop, t.Partial, t.partial, t.Stopping = nil, "", nil, false
	stopped := t.Answering
	t.Answering = false
	if stopped && errors.Is(err, client.ErrReplyLost) {
		err = &stoppedError{cause: err}
	}
	change := Change{Thread: th}
	kept := func() {}
	switch {
	case err != nil:
		t.State, t.Err = Failed, err
		if errors.Is(err, client.ErrReplyLost) {
			t.State = Lost
			th.stale = true
		}
		change.Ended = []Outcome{{Key: t.Key, End: NoReply, Err: err, State: t.State}}
	case th.deleted:
		// Deleted while the reply was on its way (the person stopped waiting, then deleted the
		// conversation): nothing is kept, and the list does not get it back.
		th.removeTurn(t.Key)
		change.Ended = []Outcome{{Key: t.Key, End: NoReply, Err: ErrDeleted, State: Failed}}
	default:
		isNew := th.id.IsZero()
		if isNew {
			th.id = res.ConversationID
			s.threads[th.id.String()] = th
			if th.speech != (Speech{}) {
				kept = s.setSpeech(th.id, th.speech)
			}
		}
		now := s.now()
		reply := Message{ID: res.ReplyMessageID, Role: Assistant, Text: res.Reply, At: now}
		th.messages = append(th.messages, Message{ID: res.UserMessageID, Role: User, Text: t.Text, At: t.At}, reply)
		th.removeTurn(t.Key)
		change.Ended = []Outcome{{Key: t.Key, End: Replied, Reply: reply, Stopped: res.Stopped}}
		s.touch(th, t.Text, now, isNew)
		if res.PointsCharged != nil || res.Balance != nil {
			s.charged, s.balance = res.PointsCharged, res.Balance
			change.Usage = true
		}
		change.List = true
	}
	next := s.nextTurn(th)
	lost := t.State == Lost
	unsaved := th.id.IsZero()
	s.mu.Unlock()
	kept()
	s.onChange(change)
	switch {
	case lost && unsaved:
		// A new conversation the service may have made: the list is read again, where it shows.
		s.Refresh()
	case lost:
		// Show what the service stored of the lost turn: the turn goes if the history shows it
		// answered, and stays for the person otherwise. The service may store the reply later
		// (it finishes a call its client left): the history is read again at the next Open.
		s.Reload(th)
	}
	if next != nil {
		s.send(th, next)
	}
}

func (th *Thread) removeTurn(key int64) {
	for i, t := range th.turns {
		if t.Key == key {
			th.turns = append(th.turns[:i], th.turns[i+1:]...)
			return
		}
	}
}

// touch moves th's entry to the top of the list, adding it for a new conversation (titled
// from its first message). Call with s.mu held.
func (s *Session) touch(th *Thread, firstText string, at time.Time, isNew bool) {
	for i, e := range s.entries {
		if e.ID == th.id {
			e.UpdatedAt = at
			copy(s.entries[1:i+1], s.entries[:i])
			s.entries[0] = e
			return
		}
	}
	title := ""
	if isNew {
		title = TitleFrom(firstText)
	}
	s.entries = append([]Entry{{ID: th.id, Title: title, UpdatedAt: at}}, s.entries...)
}
