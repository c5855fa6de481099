package voice

import "fmt"

// State is where the hands-free loop is in a turn.
type State int

// The loop's states, in the order a turn goes through them.
const (
	Idle          State = iota // not running, or stopped
	Listening                  // waiting for speech
	HearingSpeech              // the voice detector hears speech; the take is being recorded
	Transcribing               // the take is being turned into text
	Thinking                   // the question was sent to chat; waiting for the reply
	Speaking                   // the reply is being spoken
	Muted                      // the microphone is muted; nothing heard is used
	Error                      // a step failed; the loop listens again after a pause
	Waiting                    // waiting for the wake phrase: nothing heard leaves the machine
)

var stateNames = [...]string{"idle", "listening", "hearing speech", "transcribing", "thinking", "speaking", "muted", "error", "waiting for the wake phrase"}

// String names the state as people read it.
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("state(%d)", int(s))
	}
	return stateNames[s]
}

// Status is what the loop shows: its state, and what goes with it.
type Status struct {
	State State
	// Turn counts the turns from 1.
	Turn int
	// Muted is set while the microphone is muted, whatever the state (a reply may be spoken
	// while muted).
	Muted bool
	// FollowUp is set while the loop listens for a question after a reply without the wake
	// phrase (Config.Wake), until speech starts or it waits for the wake phrase again.
	FollowUp bool
	// Stopping is set after Stop while a chat call already sent finishes, so it is stored.
	Stopping bool
	// Err is what failed, in the Error state.
	Err error
	// Failed is what failed in the last turn (a *StepError), kept after the Error state while
	// the loop listens again, until speech is heard or the loop ends, so the reason stays on
	// screen; nil when the last turn did not fail.
	Failed error
	// Notice is something to tell the person along with the state, such as NoticeDidNotCatch
	// (NoNotice most of the time); the app and the CLI phrase it.
	Notice NoticeKind
}
