// Package values holds the value conversions the Parquet writer and the
// statistics collector share: decimals (rescaling, plain notation) and a
// zero-copy view of a string's bytes.
package values

import (
	"errors"
	"fmt"
	"math/big"
	"unsafe"

	"github.com/tributary-io/tributary/core/schema"
)

// UnsafeBytes views s as a byte slice without copying; parquet-go copies
// the bytes into its column buffers and never writes through them.
func UnsafeBytes(s string) []byte {
	if len(s) == 0 {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

var bigTen = big.NewInt(10)

// Pow10 returns 10^n.
func Pow10(n int) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// Rescale returns d's unscaled value at scale, refusing values that would
// lose digits or whose magnitude reaches limit (10^precision).
func Rescale(d schema.Decimal, scale int, limit *big.Int) (*big.Int, error) {
	if d.Unscaled == nil {
		return nil, errors.New("decimal with nil Unscaled")
	}
	u := d.Unscaled
	switch {
	case d.Scale < scale:
		u = new(big.Int).Mul(u, Pow10(scale-d.Scale))
	case d.Scale > scale:
		q, m := new(big.Int).QuoRem(u, Pow10(d.Scale-scale), new(big.Int))
		if m.Sign() != 0 {
			return nil, fmt.Errorf("decimal %s has more than %d fractional digits", DecimalString(d.Unscaled, d.Scale), scale)
		}
		u = q
	}
	if u.CmpAbs(limit) >= 0 {
		return nil, fmt.Errorf("decimal %s does not fit precision %d", DecimalString(d.Unscaled, d.Scale), len(limit.String())-1)
	}
	return u, nil
}

// DecimalString formats unscaled × 10^-scale in plain notation.
func DecimalString(u *big.Int, scale int) string {
	s := new(big.Int).Abs(u).String()
	neg := u.Sign() < 0
	if scale > 0 {
		if len(s) <= scale {
			s = string(make0(scale-len(s)+1)) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	} else if scale < 0 && u.Sign() != 0 {
		s += string(make0(-scale))
	}
	if neg {
		s = "-" + s
	}
	return s
}

func make0(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return b
}
