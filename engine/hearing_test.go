package engine

import (
	"context"
	"strconv"
	"testing"
	"time"

	"parley/internal/testenv"
)

func TestFindRecognisers(t *testing.T) {
	faster := testenv.StartWhisper(t, testenv.WhisperOpenAI, "hello")
	cpp := testenv.StartWhisper(t, testenv.WhisperCpp, "hello")
	chatOnly, _ := runtimeServer(t, `{"data":[{"id":"llama3.2:latest","owned_by":"library"}]}`)
	ports := []Port{{closedPort(t), "faster-whisper"}, {chatOnly, "faster-whisper"}, {faster.Port, "whisper.cpp"}, {cpp.Port, "whisper.cpp"}}
	got := FindRecognisers(t.Context(), ports, time.Second)
	if len(got) != 2 {
		t.Fatalf("found %+v; want the two speech servers, not the chat runtime", got)
	}
	want := []Recogniser{
		{Name: "faster-whisper", BaseURL: "http://127.0.0.1:" + strconv.Itoa(faster.Port) + "/v1", API: OpenAITranscriptions, Model: "Systran/faster-whisper-small"},
		{Name: "whisper.cpp", BaseURL: "http://127.0.0.1:" + strconv.Itoa(cpp.Port), API: WhisperCppInference},
	}
	for i, w := range want {
		g := got[i]
		g.Owner = Owner{}
		if g != w {
			t.Errorf("found %+v, want %+v", g, w)
		}
		if !got[i].Owner.Trusted {
			t.Errorf("%s: owner %+v, want this user", g.Name, got[i].Owner)
		}
	}
	if d := got[0].Describe(); d != "whisper-small, from faster-whisper on this computer" {
		t.Errorf("described as %q", d)
	}
	if d := got[1].Describe(); d != "whisper.cpp's server on this computer" {
		t.Errorf("described as %q", d)
	}
	if faster.Heard.Load()+cpp.Heard.Load() != 0 {
		t.Error("looking for a recogniser sent it audio")
	}
}

// A server that takes the connection and never answers costs the timeout, not the window.
func TestFindRecognisers_HungServerDoesNotHold(t *testing.T) {
	hung := testenv.StartWhisper(t, testenv.WhisperHung, "")
	live := testenv.StartWhisper(t, testenv.WhisperCpp, "hello")
	done := make(chan []Recogniser, 1)
	start := time.Now()
	go func() {
		done <- FindRecognisers(context.Background(), []Port{{hung.Port, "faster-whisper"}, {live.Port, "whisper.cpp"}}, 300*time.Millisecond)
	}()
	select {
	case got := <-done:
		if len(got) != 1 || got[0].API != WhisperCppInference {
			t.Errorf("found %+v; want whisper.cpp only", got)
		}
		t.Logf("returned after %v", time.Since(start))
	case <-time.After(20 * time.Second):
		t.Fatal("FindRecognisers did not return while a server held its connection without answering")
	}
}

func TestRecogniserPorts(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == RecogniserPortsEnv {
				return v
			}
			return ""
		}
	}
	if p, err := RecogniserPorts(env("")); err != nil || len(p) != 2 || p[0].Number != 8000 {
		t.Errorf("unset: %v %v", p, err)
	}
	if p, err := RecogniserPorts(env("none")); err != nil || len(p) != 0 {
		t.Errorf("none: %v %v", p, err)
	}
	if p, err := RecogniserPorts(env("18000,18080=whisper.cpp")); err != nil || len(p) != 2 || p[0].Runtime != "a speech server" || p[1].Runtime != "whisper.cpp" {
		t.Errorf("two ports: %v %v", p, err)
	}
	if _, err := RecogniserPorts(env("x")); err == nil || err.Error() != RecogniserPortsEnv+`: "x" is not a port` {
		t.Errorf("not a port: %v", err)
	}
}

func TestRecogniserModelName(t *testing.T) {
	for in, want := range map[string]string{
		"Systran/faster-whisper-small":           "whisper-small",
		"Systran/faster-distil-whisper-large-v3": "distil-whisper-large-v3",
		"openai/whisper-large-v3":                "whisper-large-v3",
		"whisper-1":                              "whisper-1",
	} {
		if got := RecogniserModelName(in); got != want {
			t.Errorf("RecogniserModelName(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseRecognisers(f *testing.F) {
	for _, s := range []string{`{"data":[{"id":"Systran/faster-whisper-small","owned_by":"Systran"}]}`,
		`{"data":[{"id":"llama3"},{"id":"whisper-1"}]}`, `{"data":null}`, `{}`, `[]`, ``, `{"data":[{"id":"whisper\n"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		models, _, err := ParseRecognisers(body)
		if err != nil && len(models) > 0 {
			t.Fatal("models with an error")
		}
		if len(models) > maxModels {
			t.Fatalf("%d models", len(models))
		}
		for _, m := range models {
			if !usableName(m) {
				t.Fatalf("model %q", m)
			}
		}
	})
}
