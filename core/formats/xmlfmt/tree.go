package xmlfmt

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// element is one parsed XML element of a record.
type element struct {
	name     string
	attrs    []attr
	children []*element
	text     strings.Builder // character data and CDATA, concatenated
}

type attr struct{ name, value string }

// maxDepth bounds element nesting in a record.
const maxDepth = 1000

// parseRecord parses one record's text into its element tree, with names
// as written (prefix:local), or local names only with ignoreNamespace.
// Namespace declarations (xmlns, xmlns:p) are not attributes, as in Spark.
// Any syntax error, mismatched tag or text after the record's element is
// an error (a malformed record).
func parseRecord(rec []byte, o *xmlOptions) (*element, error) {
	d := xml.NewDecoder(bytes.NewReader(rec))
	d.Strict = true
	var stack []*element
	var root *element
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root != nil && len(stack) == 0 {
				return nil, errors.New("content after the record's element")
			}
			if len(stack) >= maxDepth {
				return nil, fmt.Errorf("elements nested deeper than %d", maxDepth)
			}
			e := &element{name: o.name(t.Name)}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				e.attrs = append(e.attrs, attr{name: o.name(a.Name), value: o.attrValue(a.Value)})
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, e)
			} else {
				root = e
			}
			stack = append(stack, e)
		case xml.EndElement:
			if len(stack) == 0 || stack[len(stack)-1].name != o.name(t.Name) {
				return nil, fmt.Errorf("unexpected end element </%s>", rawName(t.Name))
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(t)
			} else if len(bytes.TrimSpace(t)) > 0 {
				return nil, errors.New("text outside the record's element")
			}
		}
	}
	if root == nil {
		return nil, errors.New("no element")
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("element <%s> is not closed", stack[len(stack)-1].name)
	}
	return root, nil
}

func rawName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// name is an element or attribute name as Spark names its column.
func (o *xmlOptions) name(n xml.Name) string {
	if o.ignoreNamespace || n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// value returns e's text as Spark reads it: surrounding white space
// dropped with ignoreSurroundingSpaces; ok is false for no text.
func (o *xmlOptions) value(e *element) (string, bool) {
	s := e.text.String()
	if o.ignoreSurroundingSpaces {
		s = strings.TrimSpace(s)
	} else if strings.TrimSpace(s) == "" && len(e.children) > 0 {
		// Indentation between child elements is not a value.
		return "", false
	}
	return s, s != ""
}

// attrValue is an attribute's value as Spark reads it: surrounding white
// space dropped with ignoreSurroundingSpaces (StaxXmlParserUtils
// convertAttributesToValuesMap), for inference and the read alike.
func (o *xmlOptions) attrValue(v string) string {
	if o.ignoreSurroundingSpaces {
		return strings.TrimSpace(v)
	}
	return v
}

// isLeaf reports whether e reads as a primitive value: no attributes
// (or excluded ones) and no child elements.
func (o *xmlOptions) isLeaf(e *element) bool {
	return len(e.children) == 0 && (o.excludeAttribute || len(e.attrs) == 0)
}
