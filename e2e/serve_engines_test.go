package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestServe_LLMAutoUsesTheRuntime: `parley serve --llm auto` finds the runtime on this computer
// (a stand-in process) and says which model answers; `parley status` names it; a chat call the
// runtime dies in is refunded, with a message that names the runtime; the offline responder then
// answers, and status says so.
func TestServe_LLMAutoUsesTheRuntime(t *testing.T) {
	si := startStandIn(t, standInSettings{DieOn: "goodbye"})
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
	out := mustRun(t, env, "", "status", "--json")
	if err := json.Unmarshal([]byte(out.Stdout), &js); err != nil || js.Balance != 9 || js.ChatEngine != "the offline responder" {
		t.Errorf("status --json after the failed call: %s (%v); want balance 9 (the failed call refunded) and the offline responder", out.Stdout, err)
	}
	if log := s.logs.String(); !strings.Contains(log, "Chat: Ollama on this computer stopped answering: the offline responder answers until it is back.") {
		t.Errorf("the service did not say the runtime went away:\n%s", log)
	}
	r = mustRun(t, env, "", "chat", "Still there?")
	if !strings.HasPrefix(strings.TrimSpace(r.Stdout), "[offline]") {
		t.Errorf("with the runtime gone, chat printed %s", r)
	}
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
