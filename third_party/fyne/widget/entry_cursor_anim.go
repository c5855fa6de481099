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
	// about 12 times a second, which an idle app pays for in power.
	cursorBlinkTimeout  = 10 * time.Second
	cursorInterruptTime = 300 * time.Millisecond
	cursorFadeAlpha     = uint8(0x16)
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
func (a *entryCursorAnimation) createAnim(inverted bool) *fyne.Animation {
	cursorOpaque := theme.Color(theme.ColorNamePrimary)
	ri, gi, bi, _ := col.ToNRGBA(cursorOpaque)
	r := uint8(ri >> 8)
	g := uint8(gi >> 8)
	b := uint8(bi >> 8)
	cursorDim := color.NRGBA{R: r, G: g, B: b, A: cursorFadeAlpha}
	if inverted {
		a.cursor.FillColor = cursorOpaque
	} else {
		a.cursor.FillColor = cursorDim
	}

	interrupted := false
	anim := fyne.NewAnimation(time.Second/2, func(f float32) {
		if timeNow().Sub(a.lastInterruptTime) > cursorBlinkTimeout {
			// Parley: rest, on, until the next key or focus.
			a.cursor.FillColor = cursorOpaque
			a.cursor.Refresh()
			a.anim.Stop()
			a.anim = nil
			a.resting = true
			return
		}
		shouldInterrupt := timeNow().Sub(a.lastInterruptTime) <= cursorInterruptTime
		if shouldInterrupt {
			if !interrupted {
				a.cursor.FillColor = cursorOpaque
				a.cursor.Refresh()
				interrupted = true
			}
			return
		}
		if interrupted {
			a.anim.Stop()
			if !inverted {
				a.anim = a.createAnim(true)
			}
			interrupted = false
			canStart := a.anim != nil
			if canStart {
				a.anim.Start()
			}
			return
		}

		// Parley: the cursor switches at the middle rather than fading over a fifth of each
		// half-second: each step of a fade redraws the whole window (12 times a second,
		// against 2).
		if f < 0.5 {
			if _, _, _, al := a.cursor.FillColor.RGBA(); uint8(al>>8) == cursorFadeAlpha {
				return
			}
			a.cursor.FillColor = cursorDim
		} else {
			if _, _, _, al := a.cursor.FillColor.RGBA(); al == 0xffff {
				return
			}
			a.cursor.FillColor = cursorOpaque
		}
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
	isStopped := a.anim == nil
	if isStopped {
		// Parley: a cursor shown (focused) blinks for cursorBlinkTimeout from now.
		if timeNow().Sub(a.lastInterruptTime) > cursorInterruptTime {
			a.lastInterruptTime = timeNow().Add(-cursorInterruptTime - time.Millisecond)
		}
		a.anim = a.createAnim(false)
		a.anim.Start()
	}
}

// temporarily stops the animation by "cursorInterruptTime".
func (a *entryCursorAnimation) interrupt() {
	a.lastInterruptTime = timeNow()
	if a.active && a.anim == nil {
		// Parley: typing wakes a resting cursor.
		a.resting = false
		a.anim = a.createAnim(false)
		a.anim.Start()
	}
}

// stops cursor animation.
func (a *entryCursorAnimation) stop() {
	a.active, a.resting = false, false
	if a.anim != nil {
		a.anim.Stop()
		a.anim = nil
	}
}
