package app

import (
	"time"

	"parley/app/locale"
	"parley/audio/playback"
	"parley/desktop/hotkey"

	"fyne.io/fyne/v2"

	"parley/audio/vad"
	"parley/audio/wake"
	"parley/engine"
	"parley/voice"
)

// The keys of the app's preferences. They are what earlier versions saved, so they never
// change: a person's settings must carry over.
const (
	prefService       = "service"  // serviceLocal or serviceRemote; unset before the first choice
	prefBaseURL       = "base_url" // the remote service's address
	prefWidth         = "window.width"
	prefHeight        = "window.height"
	prefX             = "window.x" // the top-left corner of the window's content, in screen pixels
	prefY             = "window.y"
	prefInputDevice   = "input_device"
	prefVolume        = "output_volume"
	prefSpeechRate    = "speech_rate"     // how many times as fast as made replies are spoken
	prefLanguage      = "window_language" // the window's language (locale.Languages), "" the system's
	prefAutoSpeak     = "auto_speak"
	prefHold          = "vad_hold_ms"
	prefSendSpoken    = "send_transcripts"
	prefBargeIn       = "barge_in"
	prefAdaptiveHold  = "adaptive_hold"
	prefSpeakErrors   = "speak_errors"
	prefWakeWord      = "wake_word"   // voice mode waits for the wake phrase
	prefWakePhrase    = "wake_phrase" // which (one of wake.WakePhrases)
	prefFollowUp      = "follow_up_s" // seconds after a reply a question needs no wake phrase
	prefDefaultPreset = "default_preset"
	prefDefaultVoice  = "default_voice"
	prefSpeechLang    = "speech_language" // questions' language unless a conversation names one ("" told by the recogniser)
	prefPresets       = "presets"         // the person's own presets, as JSON
	prefHotkey        = "hotkey"          // the hold-to-talk key from anywhere: "" the default, hotkeyOff none
	prefKeepInTray    = "keep_in_tray"
	prefTheme         = "theme"          // themeSystem, themeLight or themeDark
	prefTextSize      = "text_size_pct"  // the text size, in percent
	prefSidebar       = "sidebar_folded" // the conversation list was folded away by the person
	prefUnsent        = "unsent"         // what was written and not answered when Parley quit or switched services, as JSON

	// The built-in service's engines (keys are in the system keyring, never here).
	prefChatEngine  = "engine.chat" // engine.Offline, engine.Detected or engine.Remote; unset until chosen
	prefChatURL     = "engine.chat.url"
	prefChatModel   = "engine.chat.model"
	prefChatRuntime = "engine.chat.runtime"
	prefChatContext = "engine.chat.context_tokens"
	prefChatOwner   = "engine.chat.owner" // the user who ran a detected runtime when it was chosen (engine.Chat.Owner)
	prefSTTRemote   = "engine.stt.remote"
	prefSTTURL      = "engine.stt.url"
	prefSTTModel    = "engine.stt.model"
	prefTTSRemote   = "engine.tts.remote"
	prefTTSURL      = "engine.tts.url"
	prefTTSModel    = "engine.tts.model"
)

// hotkeyOff is prefHotkey's value when the person turned the key off.
const hotkeyOff = "off"

// The values of prefService, and the address used before any was chosen.
const (
	serviceLocal   = "local"
	serviceRemote  = "remote"
	defaultBaseURL = "http://127.0.0.1:8780"
)

// Defaults of the preferences that have one other than the zero value.
const (
	defaultWidth  = 1000
	defaultHeight = 700
	defaultVolume = 1.0
)

// defaultAdaptiveHold is whether voice mode's adaptive end of turn is on until the person
// chooses. On: over 64 questions with a pause inside, it cut 33% in the middle where the fixed
// 0.9 s hold cut 50% (voice.BenchmarkAdaptiveHold_CutQuestions; the README has the figures).
const defaultAdaptiveHold = true

// unsetPosition stands for a window position never saved.
const unsetPosition = -1 << 30

// prefs are the app's preferences, typed and with their defaults: every preference the app
// reads or writes goes through here. They are kept in Fyne's preferences, which are safe to
// use from any goroutine.
type prefs struct{ p fyne.Preferences }

// service is how Parley reached its service last: serviceLocal, serviceRemote, or "".
func (p prefs) service() string { return p.p.String(prefService) }

// useLocal makes the built-in service the one Parley opens next time.
func (p prefs) useLocal() { p.p.SetString(prefService, serviceLocal) }

// useRemote makes the service at base the one Parley opens next time.
func (p prefs) useRemote(base string) {
	p.p.SetString(prefService, serviceRemote)
	p.p.SetString(prefBaseURL, base)
}

// baseURL is the remote service's address, else the reference service's default one.
func (p prefs) baseURL() string { return p.p.StringWithFallback(prefBaseURL, defaultBaseURL) }

// savedBaseURL is the remote service's address, "" when none was saved.
func (p prefs) savedBaseURL() string { return p.p.StringWithFallback(prefBaseURL, "") }

// windowSize is the size the window had when it last closed.
func (p prefs) windowSize() fyne.Size {
	return fyne.NewSize(float32(p.p.FloatWithFallback(prefWidth, defaultWidth)), float32(p.p.FloatWithFallback(prefHeight, defaultHeight)))
}

// windowPosition is where the window's content was, when it was saved.
func (p prefs) windowPosition() (x, y int, ok bool) {
	x, y = p.p.IntWithFallback(prefX, unsetPosition), p.p.IntWithFallback(prefY, unsetPosition)
	return x, y, x != unsetPosition && y != unsetPosition
}

// savePlacement keeps the window's size (when sized) and position (when placed) as one change,
// and writes nothing when they did not change (it runs each time the app leaves the foreground).
func (p prefs) savePlacement(size fyne.Size, sized bool, x, y int, placed bool) {
	changed := map[string]any{}
	if sized {
		if w := float64(size.Width); p.p.Float(prefWidth) != w {
			changed[prefWidth] = w
		}
		if h := float64(size.Height); p.p.Float(prefHeight) != h {
			changed[prefHeight] = h
		}
	}
	if placed {
		if p.p.IntWithFallback(prefX, unsetPosition) != x || p.p.IntWithFallback(prefY, unsetPosition) != y {
			changed[prefX], changed[prefY] = x, y
		}
	}
	if len(changed) > 0 {
		p.setAll(changed)
	}
}

// setAll sets several preferences as one change. Fyne writes its preferences file at once on a
// change, then holds later changes for 100 ms; when the app quits within them, as it does right
// after the window closes, they may never reach the disk (seen under Xvfb: the next start had
// the first of four values). Fyne's preferences take a batch through WriteValues; any other
// implementation gets the values one by one.
func (p prefs) setAll(values map[string]any) {
	if batch, ok := p.p.(interface{ WriteValues(func(map[string]any)) }); ok {
		batch.WriteValues(func(all map[string]any) {
			for k, v := range values {
				all[k] = v
			}
		})
		return
	}
	for k, v := range values {
		switch v := v.(type) {
		case int:
			p.p.SetInt(k, v)
		case float64:
			p.p.SetFloat(k, v)
		case string:
			p.p.SetString(k, v)
		case bool:
			p.p.SetBool(k, v)
		}
	}
}

// engines is the built-in service's engines as chosen, without their keys; chosen is false
// while no chat engine was ever chosen (the first runtime found answers, else the offline
// responder).
func (p prefs) engines() (s engine.Set, chosen bool) {
	kind := engine.Kind(p.p.String(prefChatEngine))
	switch kind {
	case engine.Offline:
		s.Chat = engine.Chat{Kind: engine.Offline}
	case engine.Detected, engine.Remote:
		s.Chat = engine.Chat{Kind: kind, URL: p.p.String(prefChatURL), Model: p.p.String(prefChatModel),
			ContextTokens: p.p.Int(prefChatContext)}
		if kind == engine.Detected {
			s.Chat.Runtime = p.p.String(prefChatRuntime)
			s.Chat.Owner = p.p.String(prefChatOwner)
		}
		if s.Chat.Check() != nil {
			s.Chat, kind = engine.Chat{Kind: engine.Offline}, "" // edited by hand into something unusable
		}
	default:
		s.Chat, kind = engine.Chat{Kind: engine.Offline}, ""
	}
	s.STT = engine.Speech{Remote: p.p.Bool(prefSTTRemote), URL: p.p.String(prefSTTURL), Model: p.p.String(prefSTTModel)}
	if s.STT.Check() != nil {
		s.STT = engine.Speech{}
	}
	s.TTS = engine.Speech{Remote: p.p.Bool(prefTTSRemote), URL: p.p.String(prefTTSURL), Model: p.p.String(prefTTSModel)}
	if s.TTS.Check() != nil {
		s.TTS = engine.Speech{}
	}
	return s, kind != ""
}

// setEngines keeps s, without its keys, as the chosen engines.
func (p prefs) setEngines(s engine.Set) {
	kind := s.Chat.Kind
	if kind == "" {
		kind = engine.Offline
	}
	p.setAll(map[string]any{
		prefChatEngine: string(kind), prefChatURL: s.Chat.URL, prefChatModel: s.Chat.Model,
		prefChatRuntime: s.Chat.Runtime, prefChatContext: s.Chat.ContextTokens, prefChatOwner: s.Chat.Owner,
		prefSTTRemote: s.STT.Remote, prefSTTURL: s.STT.URL, prefSTTModel: s.STT.Model,
		prefTTSRemote: s.TTS.Remote, prefTTSURL: s.TTS.URL, prefTTSModel: s.TTS.Model,
	})
}

// inputDevice is the microphone's ID, "" for the system's default input.
func (p prefs) inputDevice() string { return p.p.String(prefInputDevice) }

func (p prefs) setInputDevice(id string) { p.p.SetString(prefInputDevice, id) }

// volume is the volume of spoken replies, 0 to 1.
func (p prefs) volume() float64 { return p.p.FloatWithFallback(prefVolume, defaultVolume) }

func (p prefs) setVolume(v float64) { p.p.SetFloat(prefVolume, v) }

// speechRate is how many times as fast as made replies are spoken, 1 unless chosen.
func (p prefs) speechRate() float64 {
	return playback.ClampSpeed(p.p.FloatWithFallback(prefSpeechRate, 1))
}

func (p prefs) setSpeechRate(v float64) { p.p.SetFloat(prefSpeechRate, playback.ClampSpeed(v)) }

// language is the window's language chosen in Preferences, "" to follow the system's.
func (p prefs) language() string {
	if l := p.p.String(prefLanguage); locale.Offered(l) {
		return l
	}
	return ""
}

func (p prefs) setLanguage(code string) { p.p.SetString(prefLanguage, code) }

// autoSpeak reports whether replies to what the person sent are spoken aloud.
func (p prefs) autoSpeak() bool { return p.p.BoolWithFallback(prefAutoSpeak, false) }

func (p prefs) setAutoSpeak(on bool) { p.p.SetBool(prefAutoSpeak, on) }

// hold is the silence that ends a recording, or a question in voice mode.
func (p prefs) hold() time.Duration {
	return time.Duration(p.p.IntWithFallback(prefHold, int(vad.DefaultHold/time.Millisecond))) * time.Millisecond
}

func (p prefs) setHold(d time.Duration) { p.p.SetInt(prefHold, int(d/time.Millisecond)) }

// sendSpoken reports whether a transcript is sent at once, rather than put in the composer.
func (p prefs) sendSpoken() bool { return p.p.Bool(prefSendSpoken) }

func (p prefs) setSendSpoken(on bool) { p.p.SetBool(prefSendSpoken, on) }

// bargeIn reports whether speaking over a reply in voice mode interrupts it.
func (p prefs) bargeIn() bool { return p.p.BoolWithFallback(prefBargeIn, false) }

func (p prefs) setBargeIn(on bool) { p.p.SetBool(prefBargeIn, on) }

// wakeWord reports whether voice mode waits for the wake phrase before each question.
func (p prefs) wakeWord() bool { return p.p.BoolWithFallback(prefWakeWord, false) }

func (p prefs) setWakeWord(on bool) { p.p.SetBool(prefWakeWord, on) }

// wakePhrase is the wake phrase chosen: one of wake.WakePhrases, the first when none (or one
// no longer offered) is kept.
func (p prefs) wakePhrase() string {
	if w, ok := wake.LookupWake(p.p.String(prefWakePhrase)); ok {
		return w.Text
	}
	return wake.DefaultWakePhrase
}

func (p prefs) setWakePhrase(text string) { p.p.SetString(prefWakePhrase, text) }

// followUp is how long after a reply voice mode takes a question without the wake phrase: 0 to
// 30 s, voice.DefaultFollowUp when not set.
func (p prefs) followUp() time.Duration {
	s := p.p.IntWithFallback(prefFollowUp, int(voice.DefaultFollowUp/time.Second))
	return time.Duration(max(0, min(s, 30))) * time.Second
}

func (p prefs) setFollowUp(d time.Duration) { p.p.SetInt(prefFollowUp, int(d/time.Second)) }

// adaptiveHold reports whether voice mode ends a question by what its transcript says (sooner
// when it reads as complete, later after "and" or "the") rather than after the fixed hold.
func (p prefs) adaptiveHold() bool {
	return p.p.BoolWithFallback(prefAdaptiveHold, defaultAdaptiveHold)
}

func (p prefs) setAdaptiveHold(on bool) { p.p.SetBool(prefAdaptiveHold, on) }

// speakErrors reports whether voice mode says aloud what went wrong.
func (p prefs) speakErrors() bool { return p.p.BoolWithFallback(prefSpeakErrors, false) }

func (p prefs) setSpeakErrors(on bool) { p.p.SetBool(prefSpeakErrors, on) }

// defaultVoice is the voice replies are spoken with when a conversation names none ("": the
// service's default).
func (p prefs) defaultVoice() string { return p.p.String(prefDefaultVoice) }

func (p prefs) setDefaultVoice(name string) { p.p.SetString(prefDefaultVoice, name) }

// speechLanguage is the language questions are spoken in when their conversation names none, a
// BCP 47 tag ("": the recogniser tells).
func (p prefs) speechLanguage() string { return p.p.String(prefSpeechLang) }

func (p prefs) setSpeechLanguage(tag string) { p.p.SetString(prefSpeechLang, tag) }

// defaultPreset names the preset new conversations start from (the first built-in one until
// the person picks another).
func (p prefs) defaultPreset() string {
	return p.p.StringWithFallback(prefDefaultPreset, builtInPresets[0].Name)
}

func (p prefs) setDefaultPreset(name string) { p.p.SetString(prefDefaultPreset, name) }

// presets is the person's own presets as JSON ("" for none).
func (p prefs) presets() string { return p.p.String(prefPresets) }

func (p prefs) setPresets(js string) { p.p.SetString(prefPresets, js) }

// hotkey is the hold-to-talk key that works from anywhere, and whether it is on.
func (p prefs) hotkey() (hotkey.Combo, bool) {
	v := p.p.String(prefHotkey)
	if v == hotkeyOff {
		return hotkey.Combo{}, false
	}
	if c, err := hotkey.Parse(v); err == nil {
		return c, true
	}
	return hotkey.Default, true
}

// setHotkey keeps the hold-to-talk key (on false: none).
func (p prefs) setHotkey(c hotkey.Combo, on bool) {
	if !on {
		p.p.SetString(prefHotkey, hotkeyOff)
		return
	}
	p.p.SetString(prefHotkey, c.String())
}

// keepInTray: closing the window hides it in the tray, where Parley keeps running.
func (p prefs) keepInTray() bool { return p.p.Bool(prefKeepInTray) }

func (p prefs) setKeepInTray(on bool) { p.p.SetBool(prefKeepInTray, on) }

func (p prefs) theme() string {
	switch v := p.p.String(prefTheme); v {
	case themeLight, themeDark:
		return v
	}
	return themeSystem
}

func (p prefs) setTheme(v string) { p.p.SetString(prefTheme, v) }

// textSize is the text size in percent (100 until chosen).
func (p prefs) textSize() int {
	return max(minTextSize, min(maxTextSize, p.p.IntWithFallback(prefTextSize, 100)))
}

func (p prefs) setTextSize(pct int) { p.p.SetInt(prefTextSize, pct) }

func (p prefs) sidebarFolded() bool { return p.p.Bool(prefSidebar) }

func (p prefs) setSidebarFolded(on bool) { p.p.SetBool(prefSidebar, on) }
