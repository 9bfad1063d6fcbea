package fileformat

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Sampler decides which records schema inference looks at: Spark's
// samplingRatio (JSON, CSV), the fraction of records sampled, drawn
// Bernoulli-style with a fixed seed (Spark samples with seed 1), so a
// given file infers the same schema every time. A ratio above 0.99 takes
// every record, as Spark does. The zero value (and nil) takes every record.
type Sampler struct {
	ratio float64
	r     *rand.Rand
}

// NewSampler reads samplingRatio from a format's options (the name
// compared case-insensitively): a number in (0, 1]; anything else wraps
// ErrBadOption.
func NewSampler(opts map[string]string) (*Sampler, error) {
	for k, v := range opts {
		if !strings.EqualFold(k, "samplingRatio") {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f > 0) || f > 1 {
			return nil, fmt.Errorf("%w: samplingRatio=%q: want a number greater than 0, at most 1", ErrBadOption, v)
		}
		if f > 0.99 {
			return nil, nil
		}
		return &Sampler{ratio: f, r: rand.New(rand.NewPCG(1, 1))}, nil
	}
	return nil, nil
}

// Take reports whether the next record is sampled.
func (s *Sampler) Take() bool {
	return s == nil || s.r == nil || s.r.Float64() < s.ratio
}
