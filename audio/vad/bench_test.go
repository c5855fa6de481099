package vad_test

import (
	"fmt"
	"math"
	"testing"

	"parley/audio/vad"
	"parley/audio/vad/vadtest"
)

// BenchmarkDetector_Feed measures the detector's speed as a multiple of real time.
func BenchmarkDetector_Feed(b *testing.B) {
	s := synth(0.01, [2]float64{1, 0}, [2]float64{2, 0.2}, [2]float64{1, 0})
	for b.Loop() {
		detect(vad.Config{}, s)
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(len(s))/16000/perOp, "x-realtime")
}

// BenchmarkDetector_Corpus reports the detector's boundary errors on the espeak-ng corpus, per
// noise level: the mean and worst absolute start and end errors in milliseconds, and how long
// after the true end the end was decided (the hold is 900 ms).
func BenchmarkDetector_Corpus(b *testing.B) {
	cases := vadtest.Build(b)
	for _, snr := range append([]float64{math.Inf(1)}, vadtest.SNRs...) {
		name := "clean"
		if !math.IsInf(snr, 1) {
			name = fmt.Sprintf("snr%g", snr)
		}
		b.Run(name, func(b *testing.B) {
			var startSum, endSum, startMax, endMax, decideMax float64
			var n int
			for b.Loop() {
				startSum, endSum, startMax, endMax, decideMax, n = 0, 0, 0, 0, 0, 0
				for _, c := range cases {
					if !c.Speech || c.SNR != snr {
						continue
					}
					r := detect(vad.Config{}, c.PCM.Samples)
					se := math.Abs(float64((r.start - c.Start).Milliseconds()))
					ee := math.Abs(float64((r.end - c.End).Milliseconds()))
					startSum, endSum = startSum+se, endSum+ee
					startMax, endMax = max(startMax, se), max(endMax, ee)
					decideMax = max(decideMax, float64((r.decidedAt - c.End).Milliseconds()))
					n++
				}
			}
			b.ReportMetric(startSum/float64(n), "start-err-ms")
			b.ReportMetric(startMax, "start-err-max-ms")
			b.ReportMetric(endSum/float64(n), "end-err-ms")
			b.ReportMetric(endMax, "end-err-max-ms")
			b.ReportMetric(decideMax, "decided-max-ms")
		})
	}
}
