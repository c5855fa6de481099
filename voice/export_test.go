package voice

// Backlog is how many frames the loop has read from its source and not handled yet; the tests'
// fake microphone waits for it to reach zero, so the fake clock does not run ahead of the loop.
func (l *Loop) Backlog() int64 { return l.backlog.Load() }

// SpeculateAfter is how long a pause must last before the take so far is sent to transcribe.
const SpeculateAfter = speculateAfter

var WithoutWakeWords = withoutWakeWords
