package batchplan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// randString draws a string that is mostly plain, sometimes with a byte
// json.Marshal escapes (quote, backslash, HTML, control, non-ASCII,
// invalid UTF-8).
func randString(rng *rand.Rand) string {
	const plain = "abcXYZ019-_./=: "
	specials := []string{`"`, `\`, "<", ">", "&", "\n", "\x00", "\x7f", "é", "\xff", "\u2028"}
	var b []byte
	for range rng.IntN(24) {
		if rng.IntN(40) == 0 {
			b = append(b, specials[rng.IntN(len(specials))]...)
		} else {
			b = append(b, plain[rng.IntN(len(plain))])
		}
	}
	return string(b)
}

// randTime draws a time: zero, in UTC or a fixed zone, with or without
// nanoseconds, sometimes outside what Time.MarshalJSON writes (years
// outside [0,9999], offsets of 24 hours or more).
func randTime(rng *rand.Rand) time.Time {
	switch rng.IntN(8) {
	case 0:
		return time.Time{}
	case 1:
		years := []int{-1, 0, 1, 9999, 10000, 12345}
		return time.Date(years[rng.IntN(len(years))], 12, 31, 23, 59, 59, rng.IntN(2)*999999999, time.UTC)
	case 2:
		offs := []int{-24 * 3600, -23*3600 - 59*60, 5*3600 + 30*60, 23*3600 + 59*60, 24 * 3600, 99 * 3600, 45}
		return time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)).In(time.FixedZone("", offs[rng.IntN(len(offs))]))
	}
	t := time.Unix(rng.Int64N(4e9), 0).UTC()
	if rng.IntN(2) == 0 {
		t = t.Add(time.Duration(rng.Int64N(1e9)))
	}
	return t
}

func randPlan(rng *rand.Rand) *Plan {
	p := &Plan{BatchID: rng.Int64N(1e6) - 10, Stream: randString(rng), CreatedAt: randTime(rng)}
	if rng.IntN(10) > 0 {
		p.Files = make([]PlanFile, rng.IntN(6))
		for i := range p.Files {
			f := PlanFile{Path: randString(rng), Size: rng.Int64() >> rng.IntN(64), ModTime: randTime(rng)}
			if rng.IntN(2) == 0 {
				f.ETag = randString(rng)
			}
			p.Files[i] = f
		}
	}
	if rng.IntN(4) == 0 {
		p.Dropped = []string{"x"} // not sealed
	}
	return p
}

// checkEncodePlan: encodePlan writes json.Marshal's bytes, or fails as it
// does.
func checkEncodePlan(t *testing.T, p *Plan) {
	t.Helper()
	got, gerr := encodePlan(p)
	want, werr := json.Marshal(p)
	if (gerr == nil) != (werr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("encodePlan(%+v) = %s, %v\njson.Marshal:       %s, %v", p, got, gerr, want, werr)
	}
}

// encodePlan writes what json.Marshal writes, on random plans, and takes
// its own path (no json.Marshal) on plans of plain strings and ordinary
// times.
func TestEncodePlanMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	fast := 0
	for range 20000 {
		p := randPlan(rng)
		checkEncodePlan(t, p)
		if _, ok := appendPlan(nil, p); ok {
			fast++
		}
	}
	if fast < 5000 {
		t.Fatalf("only %d of 20,000 plans took the direct path", fast)
	}
	at := time.Date(2026, 12, 1, 23, 20, 0, 120000000, time.UTC)
	p := &Plan{BatchID: 3, Stream: "s-1", CreatedAt: at, Files: []PlanFile{{Path: "in/part-00001.json", Size: 1024, ETag: "1a-400", ModTime: at}, {Path: "b", Size: 0}}}
	if _, ok := appendPlan(nil, p); !ok {
		t.Fatal("a plain plan did not take the direct path")
	}
	checkEncodePlan(t, p)
	checkEncodePlan(t, &Plan{})
	checkEncodePlan(t, &Plan{Files: []PlanFile{}})
}

func FuzzEncodePlan(f *testing.F) {
	f.Add(int64(0), "s", "in/a.json", "", int64(1), int64(1764631200), int64(5), 0, false)
	f.Add(int64(-1), "a<b", "x\"y", "e&", int64(-5), int64(-62167219200), int64(0), 86400, true)
	f.Add(int64(9), "s", "p", "e", int64(9), int64(253402300800), int64(999999999), -3600, false)
	f.Fuzz(func(t *testing.T, id int64, stream, path, etag string, size, sec, nsec int64, off int, nilFiles bool) {
		at := time.Unix(sec, nsec)
		if off != 0 {
			at = at.In(time.FixedZone("z", off))
		} else {
			at = at.UTC()
		}
		p := &Plan{BatchID: id, Stream: stream, CreatedAt: at}
		if !nilFiles {
			p.Files = []PlanFile{{Path: path, Size: size, ETag: etag, ModTime: at}, {Path: stream, Size: -size, ETag: path}}
		}
		checkEncodePlan(t, p)
	})
}
