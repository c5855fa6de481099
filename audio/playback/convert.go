package playback

// converter turns go-mp3's output (signed 16-bit little-endian stereo at the file's rate) into a
// Format: it resamples by linear interpolation, which is transparent enough for speech, and mixes
// stereo down to mono when the format has one channel. It keeps its state between calls, so a
// stream can be converted chunk by chunk.
type converter struct {
	inRate, outRate int // reduced by their greatest common divisor
	outChannels     int
	prev            [2]int32 // the last input frame
	havePrev        bool
	frac            int // position of the next output frame after prev, in 1/outRate input frames
}

func newConverter(inRate int, out Format) *converter {
	g := gcd(inRate, out.SampleRate)
	return &converter{inRate: inRate / g, outRate: out.SampleRate / g, outChannels: out.Channels}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// outputSize is enough room for converting n bytes of input and flushing.
func (c *converter) outputSize(n int) int {
	return (n/4*c.outRate/c.inRate + c.outRate/c.inRate + 2) * 2 * c.outChannels
}

// convert appends the converted form of in (whole stereo frames; a partial frame is ignored) to dst.
func (c *converter) convert(dst, in []byte) []byte {
	for i := 0; i+4 <= len(in); i += 4 {
		cur := [2]int32{int32(int16(uint16(in[i]) | uint16(in[i+1])<<8)), int32(int16(uint16(in[i+2]) | uint16(in[i+3])<<8))}
		if c.inRate == c.outRate {
			dst = c.appendFrame(dst, cur)
			continue
		}
		if !c.havePrev {
			c.prev, c.havePrev = cur, true
			continue
		}
		for c.frac < c.outRate {
			var f [2]int32
			for ch := range f {
				f[ch] = c.prev[ch] + int32(int64(cur[ch]-c.prev[ch])*int64(c.frac)/int64(c.outRate))
			}
			dst = c.appendFrame(dst, f)
			c.frac += c.inRate
		}
		c.frac -= c.outRate
		c.prev = cur
	}
	return dst
}

// flush appends what is owed for the last input frame at the end of the stream.
func (c *converter) flush(dst []byte) []byte {
	if c.inRate == c.outRate || !c.havePrev {
		return dst
	}
	for c.frac < c.outRate {
		dst = c.appendFrame(dst, c.prev)
		c.frac += c.inRate
	}
	c.havePrev = false
	return dst
}

func (c *converter) appendFrame(dst []byte, f [2]int32) []byte {
	if c.outChannels == 1 {
		m := (f[0] + f[1]) / 2
		return append(dst, byte(m), byte(m>>8))
	}
	return append(dst, byte(f[0]), byte(f[0]>>8), byte(f[1]), byte(f[1]>>8))
}
