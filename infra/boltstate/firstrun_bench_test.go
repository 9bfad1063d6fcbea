package boltstate

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/state"
)

// BenchmarkFirstRun is a first run's state work on the small shape: 9,000
// new files registered into a new state file in chunks (as discovery
// registers a listing: the first chunk, then larger ones), the batch's
// pending files read, and all of them claimed. Each phase reports its
// wall ms per run (fsyncs are real: the state file is on the test's
// temporary directory) and its CPU ms (the process's, at GOMAXPROCS=1 the
// phase's own).
func BenchmarkFirstRun(b *testing.B) {
	const n = 9000
	files := make([]state.File, n)
	for i := range files {
		files[i] = state.File{Path: fmt.Sprintf("part-%05d.json", i), Size: int64(1000 + i%100), ModTime: time.Unix(1.7e9, int64(i))}
	}
	for _, sched := range [][]int{{500, 2000}, {500, 4000}, {500, 4250}, {500, 2000, 8000}, {500, n}, {1000, 2000}, {n}} {
		name := strings.Trim(strings.ReplaceAll(fmt.Sprint(sched), " ", "+"), "[]")
		b.Run("chunks="+name, func(b *testing.B) {
			ctx := context.Background()
			var reg, pend, claim, regCPU, pendCPU, claimCPU time.Duration
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				s, err := Open(filepath.Join(b.TempDir(), fmt.Sprint("state-", i, ".db")))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				t0, c0 := time.Now(), cpuTime()
				for at, k := 0, 0; at < n; k++ {
					size := sched[min(k, len(sched)-1)]
					end := min(at+size, n)
					if _, err := s.Register(ctx, "s", files[at:end], state.RegisterOptions{MostlyKnown: true}); err != nil {
						b.Fatal(err)
					}
					at = end
				}
				t1, c1 := time.Now(), cpuTime()
				p, err := s.Pending(ctx, "s", 10000)
				if err != nil || len(p) != n {
					b.Fatal(len(p), err)
				}
				t2, c2 := time.Now(), cpuTime()
				paths := make([]string, len(p))
				for j, e := range p {
					paths[j] = e.Path
				}
				if err := s.Claim(ctx, "s", 0, paths); err != nil {
					b.Fatal(err)
				}
				t3, c3 := time.Now(), cpuTime()
				reg, pend, claim = reg+t1.Sub(t0), pend+t2.Sub(t1), claim+t3.Sub(t2)
				regCPU, pendCPU, claimCPU = regCPU+c1-c0, pendCPU+c2-c1, claimCPU+c3-c2
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
			b.ReportMetric(ms(reg), "register-ms")
			b.ReportMetric(ms(pend), "pending-ms")
			b.ReportMetric(ms(claim), "claim-ms")
			b.ReportMetric(ms(regCPU), "register-cpu-ms")
			b.ReportMetric(ms(pendCPU), "pending-cpu-ms")
			b.ReportMetric(ms(claimCPU), "claim-cpu-ms")
		})
	}
}
