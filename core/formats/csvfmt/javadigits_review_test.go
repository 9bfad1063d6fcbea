package csvfmt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// TestReviewUnicodeDigits: Spark reads a CSV integral value with Java's
// Integer/Long/Short/Byte.parseXxx and a decimal with new BigDecimal,
// which read every Unicode decimal digit (Character.digit: Arabic-Indic
// "١٢٣", fullwidth "１２", Devanagari "४२") as its ASCII digit, so such a
// value infers as INT/BIGINT/DECIMAL and reads as the number;
// Double.parseDouble reads ASCII digits only. Rows and column batches.
func TestReviewUnicodeDigits(t *testing.T) {
	infer := []struct {
		values []string
		want   string
	}{
		{[]string{"١٢٣", "٤٥"}, "INT"},
		{[]string{"１２", "-४२", "+7"}, "INT"},
		{[]string{"١٢٣٤٥٦٧٨٩٠١٢"}, "BIGINT"},
		{[]string{"١٢٣٤٥٦٧٨٩٠١٢٣٤٥٦٧٨٩٠"}, "DECIMAL(20,0)"},
		{[]string{"١.٥"}, "STRING"}, // a fraction goes to Double.parseDouble: ASCII only
		{[]string{"1", "x١"}, "STRING"},
	}
	for _, tc := range infer {
		data := "v\n" + strings.Join(tc.values, "\n") + "\n"
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, Options: map[string]string{"header": "true"}})
		if err := inf.Add(context.Background(), "f.csv", bytes.NewReader([]byte(data))); err != nil {
			t.Fatal(err)
		}
		if got := schema.DDLType(inf.Schema().Fields[0].Type); got != tc.want {
			t.Errorf("infer %q: %s, want %s", tc.values, got, tc.want)
		}
	}
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "i", Type: schema.Integer, Nullable: true},
		{Name: "l", Type: schema.Long, Nullable: true},
		{Name: "h", Type: schema.Short, Nullable: true},
		{Name: "d", Type: schema.DecimalType{Precision: 5, Scale: 1}, Nullable: true},
		{Name: "f", Type: schema.Double, Nullable: true},
	}}
	doc := "١٢٣,-١٢٣٤٥٦٧٨٩٠١٢,１２,٤٥.٦,١٢٣\n" + "४२,+٧,٣٢٧٦٨,\"١,٢٣٤\",7\n"
	want := [][]any{
		{int32(123), int64(-123456789012), int16(12), "456/1", nil},
		{int32(42), int64(7), nil, "12340/1", float64(7)},
	}
	rr, err := Format{}.Open(context.Background(), strings.NewReader(doc), s, fileformat.ReadOptions{FilePath: "f.csv"})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range row {
			if d, ok := v.(schema.Decimal); ok {
				row[i] = fmt.Sprintf("%s/%d", d.Unscaled, d.Scale)
			}
		}
		got = append(got, row)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	// The column batch path (its typed appenders fall back to the row
	// conversion for these) agrees.
	checkSame(t, doc+strings.Repeat("٩,٩,٩,٩,٩\n", 3), s, fileformat.ReadOptions{FilePath: "f.csv", Options: map[string]string{}}, 2)
}
