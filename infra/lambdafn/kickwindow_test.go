package lambdafn

import (
	"testing"
	"time"
)

func TestKickWindow(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"", 0, false},
		{"0", 0, false},
		{"1", 0, false},
		{"2", time.Second, false},
		{"60", 59 * time.Second, false},
		{" 300 ", 299 * time.Second, false},
		{"301", 0, true},
		{"-5", 0, true},
		{"1m", 0, true},
	}
	for _, tc := range tests {
		got, err := KickWindow(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("KickWindow(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}
