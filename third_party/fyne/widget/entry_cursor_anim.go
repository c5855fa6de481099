package widget

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	col "fyne.io/fyne/v2/internal/color"
	"fyne.io/fyne/v2/theme"
)

var timeNow = time.Now // used in tests

const (
	// Parley: the cursor stops blinking (and stays on) after this long without typing or
	// moving it, as GTK's cursor-blink-timeout does: a blinking cursor redraws the window
	// several times a second, which an idle app pays for in power.
	cursorBlinkTimeout      = 10 * time.Second
	cursorInterruptDuration = 300 * time.Millisecond
	cursorFadeAlpha         = uint8(0x16)
	cursorFadeRatio         = float32(0.2)

	fadeStart = 0.5 - cursorFadeRatio/2
	fadeStop  = 0.5 + cursorFadeRatio/2
)

type entryCursorAnimation struct {
	cursor            *canvas.Rectangle
	anim              *fyne.Animation
	lastInterruptTime time.Time
	active            bool // Parley: started (focused) and not stopped
	resting           bool // Parley: stopped blinking after cursorBlinkTimeout
}

func newEntryCursorAnimation(cursor *canvas.Rectangle) *entryCursorAnimation {
	return &entryCursorAnimation{cursor: cursor}
}

// creates fyne animation
func (a *entryCursorAnimation) createAnim() *fyne.Animation {
	r, g, b, opaqueAlpha := col.ToNRGBA(theme.Color(theme.ColorNamePrimary))
	opaqueColor := color.NRGBA{R: r, G: g, B: b, A: opaqueAlpha}
	endColor := color.NRGBA{R: r, G: g, B: b, A: cursorFadeAlpha}
	startColor := opaqueColor
	a.cursor.FillColor = startColor

	interrupted := false
	anim := fyne.NewAnimation(time.Second/2, func(f float32) {
		if timeNow().Sub(a.lastInterruptTime) > cursorBlinkTimeout {
			// Parley: rest, on, until the next key or focus.
			a.cursor.FillColor = opaqueColor
			a.cursor.Refresh()
			a.anim.Stop()
			a.anim = nil
			a.resting = true
			return
		}
		if timeNow().Sub(a.lastInterruptTime) < cursorInterruptDuration {
			if !interrupted {
				a.cursor.FillColor = opaqueColor
				a.cursor.Refresh()
				interrupted = true
			}
			return
		}

		if interrupted {
			interrupted = false
			// stop and start effectively restarts animation from the beginning
			a.anim.Stop()
			a.anim.Start()
			return
		}

		// Parley: the cursor switches at the middle rather than fading over a fifth of each
		// half-second: each step of a fade redraws the whole window (about 12 times a second,
		// against 2), which tripled the CPU an idle window used while its cursor blinked (10.2%
		// of a core against 3.4%, measured in the same run).
		c := startColor
		if f >= 0.5 {
			c = endColor
		}
		if a.cursor.FillColor == color.Color(c) {
			return
		}
		a.cursor.FillColor = c
		a.cursor.Refresh()
	})

	anim.RepeatCount = fyne.AnimationRepeatForever
	anim.AutoReverse = true
	return anim
}

// starts cursor animation (called on every refresh of a focused entry).
func (a *entryCursorAnimation) start() {
	a.active = true
	if a.resting {
		return // Parley: a refresh does not wake a resting cursor; a key does (interrupt)
	}
	if a.anim == nil {
		// Parley: a cursor shown (focused) blinks for cursorBlinkTimeout from now.
		if timeNow().Sub(a.lastInterruptTime) >= cursorInterruptDuration {
			a.lastInterruptTime = timeNow().Add(-cursorInterruptDuration)
		}
		a.anim = a.createAnim()
		a.anim.Start()
	}
}

// Stops the animation for cursorInterruptDuration.
// This is used to keep the cursor visible while typing.
func (a *entryCursorAnimation) interrupt() {
	a.lastInterruptTime = timeNow()
	if a.active && a.anim == nil {
		// Parley: typing wakes a resting cursor.
		a.resting = false
		a.anim = a.createAnim()
		a.anim.Start()
	}
}

func (a *entryCursorAnimation) stop() {
	a.active, a.resting = false, false
	if a.anim != nil {
		a.anim.Stop()
		a.anim = nil
	}
}
