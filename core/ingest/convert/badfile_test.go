package convert

import (
	"errors"
	"strings"
	"testing"
)

// TestJudge: a missing or unusable file is skipped or fails at once; a
// corrupt read is read again, kept (or failed) once it fails at the same
// point twice, and fails as unstable after MaxFileReads reads that stop
// at different points.
func TestJudge(t *testing.T) {
	corrupt := func(rows int64, msg string) *FileError {
		return &FileError{Path: "in/a.json", Fault: FaultCorrupt, Rows: rows, Err: errors.New(msg)}
	}
	name := func(k string) string { return "s3://b/" + k }
	tests := []struct {
		name    string
		policy  Policy
		reads   []*FileError
		want    []Verdict
		wantErr error
		errHas  string
	}{
		{"missing fails", Policy{Name: name}, []*FileError{{Path: "in/a.json", Fault: FaultMissing, Err: errors.New("gone")}},
			[]Verdict{FailBatch}, ErrMissingFile, "s3://b/in/a.json was deleted"},
		{"missing ignored", Policy{IgnoreMissing: true}, []*FileError{{Path: "in/a.json", Fault: FaultMissing, Err: errors.New("gone")}},
			[]Verdict{KeepRead}, nil, ""},
		{"unusable skipped", Policy{}, []*FileError{{Path: "in/a.json", Fault: FaultUnusable, Err: errors.New("no partition")}},
			[]Verdict{KeepRead}, nil, ""},
		{"same cut twice fails", Policy{Name: name}, []*FileError{corrupt(5, "eof"), corrupt(5, "eof")},
			[]Verdict{RetryBatch, FailBatch}, ErrCorruptFile, "after 5 rows"},
		{"same cut twice kept", Policy{IgnoreCorrupt: true}, []*FileError{corrupt(5, "eof"), corrupt(5, "eof")},
			[]Verdict{RetryBatch, KeepRead}, nil, ""},
		{"moving cuts are unstable", Policy{IgnoreCorrupt: true, Name: name}, []*FileError{corrupt(1, "eof"), corrupt(2, "eof"), corrupt(3, "eof")},
			[]Verdict{RetryBatch, RetryBatch, FailBatch}, ErrUnstableRead, "3 reads failed at different points"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rf := Failures{}
			var err error
			for i, fe := range tt.reads {
				var v Verdict
				v, err = tt.policy.Judge(rf, fe)
				if v != tt.want[i] {
					t.Fatalf("read %d: verdict %d, want %d", i+1, v, tt.want[i])
				}
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("err %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("err %v, want %v containing %q", err, tt.wantErr, tt.errHas)
			}
		})
	}
}

func TestReason(t *testing.T) {
	tests := []struct {
		fe   FileError
		want string
	}{
		{FileError{Fault: FaultMissing, Err: errors.New("x")}, "deleted since it was discovered"},
		{FileError{Fault: FaultCorrupt, Rows: 3, Err: errors.New("bad gzip")}, "corrupt: bad gzip; the 3 rows read before the corruption were kept"},
		{FileError{Fault: FaultCorrupt, Err: errors.New("bad gzip")}, "corrupt: bad gzip"},
		{FileError{Fault: FaultUnusable, Err: errors.New("no day=<value> directory")}, "no day=<value> directory"},
	}
	for _, tt := range tests {
		if got := tt.fe.Reason(); got != tt.want {
			t.Errorf("Reason() = %q, want %q", got, tt.want)
		}
	}
}
