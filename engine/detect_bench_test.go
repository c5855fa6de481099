package engine

import (
	"testing"
)

// BenchmarkDetect_NothingRunning is the search on a computer with no runtime: every port refuses.
func BenchmarkDetect_NothingRunning(b *testing.B) {
	ports := []Port{{closedPort(b), "Ollama"}, {closedPort(b), "LM Studio"}, {closedPort(b), "llama.cpp"}, {closedPort(b), "vLLM"}}
	for b.Loop() {
		if len(Detect(b.Context(), ports, DetectTimeout)) != 0 {
			b.Fatal("found a runtime")
		}
	}
}

// BenchmarkDetect_OneRuntime is the search with one runtime answering and the other ports closed.
func BenchmarkDetect_OneRuntime(b *testing.B) {
	live, _ := runtimeServer(b, `{"data":[{"id":"llama3.2:latest","owned_by":"library"}]}`)
	ports := []Port{{live, "Ollama"}, {closedPort(b), "LM Studio"}, {closedPort(b), "llama.cpp"}, {closedPort(b), "vLLM"}}
	for b.Loop() {
		if len(Detect(b.Context(), ports, DetectTimeout)) != 1 {
			b.Fatal("the runtime was not found")
		}
	}
}

// BenchmarkDetect_HungRuntime is the search with a runtime that takes the connection and never
// answers: it costs the timeout, which is what the window is spared by searching in the background.
func BenchmarkDetect_HungRuntime(b *testing.B) {
	ports := []Port{{silentPort(b), "Ollama"}, {closedPort(b), "LM Studio"}}
	for b.Loop() {
		Detect(b.Context(), ports, DetectTimeout)
	}
}
