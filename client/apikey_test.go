package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestAPIKey_Redacted(t *testing.T) {
	k := APIKey(canaryKey)
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10s", "%-20v", "%T"} {
		if verb == "%T" {
			continue
		}
		outs = append(outs, fmt.Sprintf(verb, k))
	}
	outs = append(outs,
		k.String(), k.GoString(), fmt.Sprint(k), fmt.Sprintln(k),
		fmt.Sprintf("%v", struct{ Key APIKey }{k}), fmt.Sprintf("%+v", Options{APIKey: k}), fmt.Sprintf("%#v", Options{APIKey: k}),
	)
	j, _ := json.Marshal(struct{ Key APIKey }{k})
	txt, _ := k.MarshalText()
	outs = append(outs, string(j), string(txt))
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "key", k)
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "key", k, "opts", Options{APIKey: k})
	outs = append(outs, buf.String())
	for _, s := range outs {
		if strings.Contains(s, canaryKey) || strings.Contains(s, fmt.Sprintf("%x", canaryKey)) {
			t.Errorf("the key is visible in %q", s)
		}
		if !strings.Contains(s, "[REDACTED]") {
			t.Errorf("%q does not say [REDACTED]", s)
		}
	}
	if k.Reveal() != canaryKey {
		t.Error("Reveal does not return the key")
	}
}
