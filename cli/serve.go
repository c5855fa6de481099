package cli

import (
	"errors"
	"net"

	"github.com/spf13/cobra"

	"parley/internal/loopback"
	"parley/server"
)

// newServeCmd runs the reference Chat and Voice Service until interrupted.
func newServeCmd(g *globals) *cobra.Command {
	o := server.DefaultServeOptions()
	o.Data = g.dataDir()
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Run the reference Chat and Voice Service",
		Long: `Run the reference Chat and Voice Service until interrupted (Ctrl-C or SIGTERM), on loopback
unless told otherwise. Keys, points and the price are managed with 'parley admin' on the same
--data directory, also while the service runs. Upstream API keys are read from the environment
variables named by --llm-key-env, --stt-key-env and --tts-key-env, never from a flag.

With --llm auto, a runtime whose port another user's program holds is left alone (Linux and
Windows check who owns it), and while the runtime found is not running, chat calls fail and
are refunded: the offline responder does not answer in its place.`,
		Example: `  parley serve --demo
  parley serve --addr 127.0.0.1:0
  parley serve --llm auto
  parley serve --llm-url http://localhost:11434/v1 --llm-model llama3.2 --llm-key-env OPENAI_API_KEY`,
		Args: g.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := server.Serve(cmd.Context(), o, g.stdout, g.stderr)
			var oe *server.OptionError
			if errors.As(err, &oe) {
				if host, _, herr := net.SplitHostPort(o.Addr); oe.Option == "--addr" && herr == nil && !loopback.Host(host) {
					return usageErrorf("--addr %s would let API keys cross the network in clear: give --tls-cert and --tls-key, or --insecure-bind if you mean it", elastic(o.Addr))
				}
				return usageErrorf("%s", oe.Error())
			}
			return err
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.Addr, "addr", o.Addr, "`host:port` to listen on (port 0 picks a free one)")
	f.StringVar(&o.Data, "data", o.Data, "`directory` of the database (parley.db)")
	f.BoolVar(&o.Demo, "demo", false, "create a key with 1,000,000 points if there is none, and print it")
	f.StringVar(&o.LLM, "llm", "", "`auto`: use the first model runtime found on this computer (Ollama, LM Studio, llama.cpp, vLLM); offline: the offline responder")
	f.StringVar(&o.LLMURL, "llm-url", "", "base `URL` of an OpenAI-compatible chat API (without it, the offline responder answers)")
	f.StringVar(&o.LLMModel, "llm-model", "", "chat model `name` (required with --llm-url; with --llm auto, the model to look for)")
	f.StringVar(&o.LLMKeyEnv, "llm-key-env", "", "environment `variable` holding the chat API key")
	f.StringVar(&o.STT, "stt", "", "`auto`: hear with a Whisper server found on this computer (speaches, LocalAI, vLLM, whisper.cpp) while one answers, else local pocketsphinx")
	f.StringVar(&o.STTURL, "stt-url", "", "base `URL` of an OpenAI-compatible /audio/transcriptions API (default: local pocketsphinx)")
	f.StringVar(&o.STTModel, "stt-model", o.STTModel, "speech-to-text model `name`")
	f.StringVar(&o.STTKeyEnv, "stt-key-env", "", "environment `variable` holding the speech-to-text API key")
	f.StringVar(&o.TTSURL, "tts-url", "", "base `URL` of an OpenAI-compatible /audio/speech API (default: local flite or espeak-ng, and lame)")
	f.StringVar(&o.TTSModel, "tts-model", o.TTSModel, "text-to-speech model `name`")
	f.StringVar(&o.TTSKeyEnv, "tts-key-env", "", "environment `variable` holding the text-to-speech API key")
	f.StringVar(&o.TLSCert, "tls-cert", "", "TLS certificate `file` (with --tls-key: serve HTTPS)")
	f.StringVar(&o.TLSKey, "tls-key", "", "TLS private key `file`")
	f.BoolVar(&o.InsecureBind, "insecure-bind", false, "allow a non-loopback --addr without TLS")
	f.Int64Var(&o.MaxBody, "max-body", o.MaxBody, "largest request body in `bytes`")
	f.DurationVar(&o.ChatTimeout, "chat-timeout", o.ChatTimeout, "longest wait for the chat model (1s to 10m)")
	return cmd
}
