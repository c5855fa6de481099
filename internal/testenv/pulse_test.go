package testenv_test

import (
	"os/exec"
	"strings"
	"testing"

	"parley/internal/testenv"
)

func TestStartPulse_SinkIsDefault(t *testing.T) {
	p := testenv.StartPulse(t)
	out, err := exec.Command("pactl", "get-default-sink").Output()
	if err != nil {
		t.Fatalf("pactl get-default-sink: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != p.Sink {
		t.Fatalf("default sink = %q, want %q", got, p.Sink)
	}
}
