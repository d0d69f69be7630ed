package process

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/toolbelt-go/tool/internal/procscan"
)

// singleflightScans is the scan sharer written with singleflight, for
// BenchmarkSharedScans to measure against scanSharer. A sweep needs a scan
// that started after it asked (one that started before may miss a process
// forked since), so a caller that joined a scan in progress asks again:
// any scan it joins then started after the first one ended.
type singleflightScans struct{ g singleflight.Group }

func (s *singleflightScans) get() *scanRound {
	led := false
	scan := func() (any, error) {
		led = true
		r := &scanRound{}
		r.index(procscan.Scan(treeMarkerEnv))
		return r, nil
	}
	v, _, _ := s.g.Do("scan", scan)
	if !led {
		v, _, _ = s.g.Do("scan", scan)
	}
	return v.(*scanRound)
}

// BenchmarkSharedScans has n commands ask for a scan at once, as n
// commands timing out together do, through scanSharer and through the
// same sharing written with singleflight, in alternating rounds of the
// same loop (a busy machine slows both alike): the time until the last
// has its scan (hand-us, singleflight-us, and x-singleflight, the first
// over the second) and how many scans a round took. The figures quoted in
// sweep_linux.go come from it:
//
//	go test -run '^$' -bench SharedScans -count 6 ./process
func BenchmarkSharedScans(b *testing.B) {
	if !procscan.Supported() {
		b.Skip("no /proc")
	}
	for _, n := range []int{1, 8, 50} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			round := func(get func() *scanRound) (time.Duration, int) {
				var wg sync.WaitGroup
				var mu sync.Mutex
				seen := map[*scanRound]bool{}
				start := time.Now()
				for range n {
					wg.Go(func() {
						r := get()
						mu.Lock()
						seen[r] = true
						mu.Unlock()
					})
				}
				wg.Wait()
				return time.Since(start), len(seen)
			}
			sf := &singleflightScans{}
			var tHand, tSF time.Duration
			var sHand, sSF, rounds int
			for b.Loop() {
				d, s := round(scans.get)
				tHand, sHand = tHand+d, sHand+s
				d, s = round(sf.get)
				tSF, sSF = tSF+d, sSF+s
				rounds++
			}
			b.ReportMetric(float64(tHand.Microseconds())/float64(rounds), "hand-us")
			b.ReportMetric(float64(tSF.Microseconds())/float64(rounds), "singleflight-us")
			b.ReportMetric(float64(tHand)/float64(tSF), "x-singleflight")
			b.ReportMetric(float64(sHand)/float64(rounds), "hand-scans")
			b.ReportMetric(float64(sSF)/float64(rounds), "singleflight-scans")
		})
	}
}
