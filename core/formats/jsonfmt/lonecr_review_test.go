package jsonfmt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestReviewParallelLoneCR: documents whose lines end with a lone "\r"
// (or mix "\r", "\n" and "\r\n") read the same in parallel chunks as
// with Next (the parallel read cuts its blocks at a lone "\r" too).
func TestReviewParallelLoneCR(t *testing.T) {
	g := cleanGen{rand.New(rand.NewPCG(31, 606))}
	for i := range 40 {
		c := g.randomCase()
		var doc strings.Builder
		for range 50 + g.r.IntN(200) {
			doc.WriteString(g.object(c.s))
			if i%2 == 0 {
				doc.WriteString("\r")
			} else {
				doc.WriteString(g.pick("\r", "\n", "\r\n", "\r\r", "\n\r"))
			}
		}
		c.doc = doc.String()
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkSamePaths(t, c, 1+i%5) })
	}
}
