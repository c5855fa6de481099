package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"
	"time"

	"gopkg.in/hraban/opus.v2"
)

// The Ogg/Opus fixtures were made by opus-tools, an encoder independent of ours:
//
//	espeak-ng -v en-us -s 200 -w h.wav "Hello Parley."
//	sox h.wav -r 16000 -c 1 -b 16 hello.wav && opusenc --bitrate 16 hello.wav hello.opus
//	sox h.wav -r 48000 -c 2 h48s.wav && opusenc --bitrate 24 h48s.wav hello-stereo.opus

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeOggOpus_OpusencFiles(t *testing.T) {
	ref, err := ReadWAV(bytes.NewReader(readFixture(t, "hello.wav")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file     string
		channels int
	}{{"hello.opus", 1}, {"hello-stereo.opus", 2}} {
		t.Run(tt.file, func(t *testing.T) {
			got, err := DecodeOggOpus(readFixture(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got.Rate != 16000 || got.Channels != tt.channels {
				t.Fatalf("decoded %d Hz %d ch, want 16000 Hz %d ch", got.Rate, got.Channels, tt.channels)
			}
			// opusenc's granule positions trim the end to the input's exact length.
			if d := got.Duration() - ref.Duration(); d < -time.Millisecond || d > time.Millisecond {
				t.Errorf("decoded %v, the WAV holds %v", got.Duration(), ref.Duration())
			}
			if r := correlation(envelope(ref), envelope(got)); r < 0.9 {
				t.Errorf("energy envelope correlation %.3f, want > 0.9", r)
			}
		})
	}
}

// oggWriter writes Ogg pages for one logical stream, as a minimal muxer for tests.
type oggWriter struct {
	buf    bytes.Buffer
	serial uint32
	seq    uint32
}

// page writes one page holding whole packets (and, with cont, the continued tail first).
func (w *oggWriter) page(flags byte, granule int64, packets ...[]byte) {
	var lacing, body []byte
	for _, p := range packets {
		n := len(p)
		for n >= 255 {
			lacing = append(lacing, 255)
			n -= 255
		}
		lacing = append(lacing, byte(n))
		body = append(body, p...)
	}
	w.raw(flags, granule, lacing, body)
}

// raw writes a page with the lacing values given as they are.
func (w *oggWriter) raw(flags byte, granule int64, lacing, body []byte) {
	h := make([]byte, 27, 27+len(lacing)+len(body))
	copy(h, "OggS")
	h[5] = flags
	binary.LittleEndian.PutUint64(h[6:], uint64(granule))
	binary.LittleEndian.PutUint32(h[14:], w.serial)
	binary.LittleEndian.PutUint32(h[18:], w.seq)
	h[26] = byte(len(lacing))
	h = append(h, lacing...)
	h = append(h, body...)
	binary.LittleEndian.PutUint32(h[22:], oggCRC(0, h))
	w.seq++
	w.buf.Write(h)
}

// encodeOggOpus encodes mono 16 kHz PCM to Ogg/Opus with perPage packets per page, the end
// trimmed by the last granule position.
func encodeOggOpus(t testing.TB, p PCM, perPage int) []byte {
	t.Helper()
	enc, err := opus.NewEncoder(16000, 1, opus.AppVoIP)
	if err != nil {
		t.Fatal(err)
	}
	w := &oggWriter{serial: 0x5EED}
	head := opusHead{channels: 1, preSkip: opusPreSkip48k, inputRate: 16000}
	w.page(0x02, 0, head.marshal())
	w.page(0, 0, []byte("OpusTags\x06\x00\x00\x00parley\x00\x00\x00\x00"))
	frames := (p.Frames() + 104 + 319) / 320
	pcm := make([]int16, frames*320)
	copy(pcm, p.Samples)
	var pkts [][]byte
	buf := make([]byte, 4000)
	for i := range frames {
		n, err := enc.Encode(pcm[i*320:(i+1)*320], buf)
		if err != nil {
			t.Fatal(err)
		}
		pkts = append(pkts, bytes.Clone(buf[:n]))
	}
	for i := 0; i < len(pkts); i += perPage {
		end := min(i+perPage, len(pkts))
		granule := int64(end * 960)
		flags := byte(0)
		if end == len(pkts) {
			flags = 0x04
			granule = int64(p.Frames()*3 + opusPreSkip48k)
		}
		w.page(flags, granule, pkts[i:end]...)
	}
	return w.buf.Bytes()
}

func TestDecodeOggOpus_OurMuxer(t *testing.T) {
	in := sine(16000, 440, 0.4, 1234*time.Millisecond)
	for _, perPage := range []int{1, 7, 50} {
		got, err := DecodeOggOpus(encodeOggOpus(t, in, perPage))
		if err != nil {
			t.Fatalf("%d packets a page: %v", perPage, err)
		}
		if got.Frames() != in.Frames() {
			t.Errorf("%d packets a page: %d frames, want %d", perPage, got.Frames(), in.Frames())
		}
	}
}

func TestDecodeOggOpus_PacketsAcrossPages(t *testing.T) {
	// A 600-byte OpusTags packet split over two pages, then audio.
	w := &oggWriter{serial: 7}
	w.page(0x02, 0, opusHead{channels: 1, preSkip: 312, inputRate: 16000}.marshal())
	tags := append([]byte("OpusTags"), make([]byte, 592)...)
	w.raw(0, -1, []byte{255, 255}, tags[:510])
	w.raw(0x01, 0, []byte{90}, tags[510:])
	enc, _ := opus.NewEncoder(16000, 1, opus.AppVoIP)
	pkt := make([]byte, 4000)
	var pkts [][]byte
	for range 10 {
		n, _ := enc.Encode(make([]int16, 320), pkt)
		pkts = append(pkts, bytes.Clone(pkt[:n]))
	}
	w.page(0x04, 10*960, pkts...)
	got, err := DecodeOggOpus(w.buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if want := 10*320 - 104; got.Frames() != want {
		t.Fatalf("%d frames, want %d", got.Frames(), want)
	}
}

func TestDecodeOggOpus_Bad(t *testing.T) {
	good := encodeOggOpus(t, sine(16000, 440, 0.4, 200*time.Millisecond), 3)
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-1] ^= 0xFF // the last page fails its checksum and is skipped
	vorbis := &oggWriter{serial: 1}
	vorbis.page(0x02, 0, []byte("\x01vorbis\x00\x00\x00\x00\x01\x44\xac\x00\x00"))
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"text", []byte("OggS but not really"), ErrNotAudio},
		{"vorbis", vorbis.buf.Bytes(), ErrUnsupported},
		{"headers cut", good[:60], nil},
		{"not ogg", []byte("{\"json\": true}"), ErrNotAudio},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeOggOpus(tt.data)
			if err == nil {
				t.Fatal("accepted")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	got, err := DecodeOggOpus(badCRC)
	if err != nil {
		t.Fatalf("a bad last page failed the whole file: %v", err)
	}
	if got.Frames() == 0 || got.Frames() >= 3200 {
		t.Errorf("bad last page: %d frames, want the pages before it", got.Frames())
	}
	for n := range len(good) {
		_, _ = DecodeOggOpus(good[:n]) // every cut: an error or audio, never a panic
	}
}
