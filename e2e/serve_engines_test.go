package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestServe_LLMAutoUsesTheRuntime: `parley serve --llm auto` finds the runtime on this computer
// (a stand-in process) and says which model answers; `parley status` names it; a chat call the
// runtime dies in is refunded, with a message that names the runtime; the calls after it fail
// too, and cost nothing (no other engine answers in its place), and status says it is not
// running.
func TestServe_LLMAutoUsesTheRuntime(t *testing.T) {
	// A port of its own: another test's stand-in taking Ollama's port after this one died would
	// be this runtime back.
	si := startStandIn(t, standInSettings{DieOn: "goodbye", Addr: "127.0.0.1:0"})
	s := startServiceEnv(t, si.portsEnv, "--llm", "auto")
	key := s.newKey(t, 10)
	env := s.env("PARLEY_API_KEY=" + key)
	if log := s.logs.String(); !strings.Contains(log, "Chat: standin, from Ollama on this computer answers (found by --llm auto; context window 4096 tokens).") {
		t.Errorf("the service does not say which model it found:\n%s", log)
	}

	r := mustRun(t, env, "", "chat", "What is the capital of France?")
	if !strings.Contains(r.Stdout, `The standin model heard "What is the capital of France?"`) {
		t.Errorf("chat printed %s", r)
	}
	st := mustRun(t, env, "", "status")
	if !strings.Contains(st.Stdout, "Chat engine:  standin, from Ollama on this computer") {
		t.Errorf("status does not name the engine: %s", st)
	}

	died := run(t, env, "", "chat", "goodbye for now")
	// The line names the runtime; the balance below shows the refund (the line is cut to fit a
	// terminal before the service's words say so).
	if died.Code == 0 || !strings.Contains(died.Stderr, "Ollama on this computer did not answer: is it still running?") {
		t.Errorf("a chat the runtime died in: %s", died)
	}
	var js struct {
		Balance    int64  `json:"balance"`
		ChatEngine string `json:"chat_engine"`
	}
	status := func() {
		t.Helper()
		out := mustRun(t, env, "", "status", "--json")
		if err := json.Unmarshal([]byte(out.Stdout), &js); err != nil || js.Balance != 9 || js.ChatEngine != "standin, from Ollama on this computer (not running)" {
			t.Errorf("status --json: %s (%v); want balance 9 (only the first call charged) and the runtime not running", out.Stdout, err)
		}
	}
	status()
	if log := s.logs.String(); !strings.Contains(log, "Chat: Ollama on this computer stopped answering: chat calls fail, and cost nothing, until it is back. "+
		"Start it again, or start parley serve with another engine.") {
		t.Errorf("the service did not say the runtime went away:\n%s", log)
	}
	for _, q := range []string{"Still there?", "Hello?"} {
		r = run(t, env, "", "chat", q)
		if r.Code == 0 || strings.Contains(r.Stdout, "[offline]") || !strings.Contains(r.Stderr, "Ollama on this computer is not running") {
			t.Errorf("with the runtime gone, chat %q: %s", q, r)
		}
	}
	status()
}

// TestServe_LLMAutoFindsNothing: with no runtime, the offline responder answers and the service
// says how to get a real model.
func TestServe_LLMAutoFindsNothing(t *testing.T) {
	hung, _ := hungRuntime(t) // takes the connection, never answers: detection moves on
	s := startServiceEnv(t, []string{"PARLEY_TEST_RUNTIME_PORTS=" + hung}, "--llm", "auto")
	log := s.logs.String()
	if !strings.Contains(log, "--llm auto found no model runtime on this computer (looked at 127.0.0.1, ports "+hung+" (a model server))") ||
		!strings.Contains(log, "ollama pull llama3.2") {
		t.Errorf("the service log says:\n%s", log)
	}
	key := s.newKey(t, 10)
	r := mustRun(t, s.env("PARLEY_API_KEY="+key), "", "chat", "Hello")
	if !strings.HasPrefix(strings.TrimSpace(r.Stdout), "[offline]") {
		t.Errorf("chat printed %s", r)
	}
}
