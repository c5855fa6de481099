package playback

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"
)

// OpenDataURI checks that uri is a base64 data URI of audio (the speech service sends
// "data:audio/mpeg;base64,...") and returns a reader that decodes its payload as it is read, so
// decoding the MP3 can start before the whole payload is decoded. Line breaks in the payload are
// ignored and missing padding is accepted; corrupt base64 is reported by the reader.
func OpenDataURI(uri string) (io.Reader, error) {
	uri = strings.TrimSpace(uri)
	if len(uri) < len("data:") || !strings.EqualFold(uri[:len("data:")], "data:") {
		return nil, fmt.Errorf("%w: it does not start with \"data:\"", ErrDataURI)
	}
	header, payload, ok := strings.Cut(uri[len("data:"):], ",")
	if !ok {
		return nil, fmt.Errorf("%w: it has no comma before the data", ErrDataURI)
	}
	params := strings.Split(header, ";")
	mediaType := strings.ToLower(strings.TrimSpace(params[0]))
	if mediaType != "" && !strings.HasPrefix(mediaType, "audio/") && mediaType != "application/octet-stream" {
		return nil, fmt.Errorf("%w: it holds %q, not audio", ErrDataURI, mediaType)
	}
	if !strings.EqualFold(strings.TrimSpace(params[len(params)-1]), "base64") {
		return nil, fmt.Errorf("%w: its data is not base64", ErrDataURI)
	}
	if payload == "" {
		return nil, fmt.Errorf("%w: it holds no data", ErrDataURI)
	}
	enc := base64.StdEncoding
	if !strings.ContainsAny(payload, "=\r\n \t") && len(payload)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	return base64.NewDecoder(enc, strings.NewReader(payload)), nil
}
