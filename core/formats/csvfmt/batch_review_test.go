package csvfmt

import (
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// TestReviewBatchEdges: ReadBatch against Next on values at the edges of
// the typed appenders (int64 and int32 limits, signs, Java double syntax,
// NaN/Infinity/-0.0, decimals at their precision, booleans in any case),
// all-null columns, a BOM, CRLF, no final newline and a malformed last
// record, in every mode, with and without a rescued data or corrupt
// record column.
func TestReviewBatchEdges(t *testing.T) {
	cols := []schema.Field{
		{Name: "l", Type: schema.Long, Nullable: true},
		{Name: "i", Type: schema.Integer, Nullable: true},
		{Name: "d", Type: schema.Double, Nullable: true},
		{Name: "b", Type: schema.Boolean, Nullable: true},
		{Name: "m", Type: schema.DecimalType{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "s", Type: schema.String, Nullable: true},
		{Name: "n", Type: schema.String, Nullable: true},
	}
	rows := []string{
		"9223372036854775807,2147483647,1e400,TRUE,99999999.99,x,",
		"-9223372036854775808,-2147483648,-1e400,tRuE,-99999999.99,,",
		"9223372036854775808,2147483648,-0.0,false,100000000.00,é,",
		"+5,+7,-0,FALSE,0.005,\"\",",
		"-0,-0,NaN,yes,1e3,\"a,b\",",
		"0x10,1_000,Infinity,1,-0.005,\xff,",
		"007,08,+Infinity,0,1E+2, s ,",
		"1 , 2,1d,true ,12.345,s,",
		"-,−5,0x1p3,True,99999999.995,s,",
		"1,2,4.9e-324,false,.5,s,",
		"1,2,1.7976931348623157e308,false,-.5,s,",
	}
	docs := map[string]string{
		"lf":           strings.Join(rows, "\n") + "\n",
		"crlf":         strings.Join(rows, "\r\n") + "\r\n",
		"bom, no eol":  "\uFEFF" + strings.Join(rows, "\n"),
		"bad last":     strings.Join(rows, "\n") + "\n1,2,3,true,1.5,\"unclosed,",
		"short last":   strings.Join(rows, "\n") + "\n1,2",
		"all nulls":    strings.Repeat(",,,,,,\n", 700),
		"long strings": strings.Repeat("1,2,3,true,1.5,"+strings.Repeat("é", 40000)+",\n", 3),
	}
	for name, doc := range docs {
		for _, extra := range []string{"", "_rescued_data", "_corrupt_record"} {
			for _, mode := range []fileformat.ParseMode{"PERMISSIVE", "DROPMALFORMED", "FAILFAST"} {
				for _, o := range []map[string]string{{}, {"ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true"}, {"nullValue": "-", "nanValue": "NaN", "emptyValue": "E"}} {
					s := &schema.StructType{Fields: append([]schema.Field(nil), cols...)}
					opts := fileformat.ReadOptions{FilePath: "f.csv", Options: o, Mode: mode}
					if extra != "" {
						s.Fields = append(s.Fields, schema.Field{Name: extra, Type: schema.String, Nullable: true})
						if extra == "_rescued_data" {
							opts.RescuedDataColumn = extra
						}
					}
					t.Run(name, func(t *testing.T) {
						for _, maxRows := range []int{1, 3, 1000} {
							checkSame(t, doc, s, opts, maxRows)
						}
					})
				}
			}
		}
	}
}
