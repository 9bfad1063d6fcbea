package datetimefmt

import (
	"fmt"
	"strings"
)

// names are a locale's month, am-pm and era names (CLDR, as Java 11+
// formats them; parsing compares case-insensitively).
type names struct {
	months, short [12]string
	ampm          [2]string
	era           [2]string // BC, AD
}

var localeTable = map[string]*names{
	"en": {
		months: [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
		short:  [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"},
		ampm:   [2]string{"AM", "PM"}, era: [2]string{"BC", "AD"},
	},
	"fr": {
		months: [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
		short:  [12]string{"janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."},
		ampm:   [2]string{"AM", "PM"}, era: [2]string{"av. J.-C.", "ap. J.-C."},
	},
	"de": {
		months: [12]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
		short:  [12]string{"Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."},
		ampm:   [2]string{"AM", "PM"}, era: [2]string{"v. Chr.", "n. Chr."},
	},
	"es": {
		months: [12]string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
		short:  [12]string{"ene.", "feb.", "mar.", "abr.", "may.", "jun.", "jul.", "ago.", "sept.", "oct.", "nov.", "dic."},
		ampm:   [2]string{"a. m.", "p. m."}, era: [2]string{"a. C.", "d. C."},
	},
	"it": {
		months: [12]string{"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"},
		short:  [12]string{"gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"},
		ampm:   [2]string{"AM", "PM"}, era: [2]string{"a.C.", "d.C."},
	},
	"pt": {
		months: [12]string{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
		short:  [12]string{"jan.", "fev.", "mar.", "abr.", "mai.", "jun.", "jul.", "ago.", "set.", "out.", "nov.", "dez."},
		ampm:   [2]string{"AM", "PM"}, era: [2]string{"a.C.", "d.C."},
	},
	"nl": {
		months: [12]string{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
		short:  [12]string{"jan.", "feb.", "mrt.", "apr.", "mei", "jun.", "jul.", "aug.", "sep.", "okt.", "nov.", "dec."},
		ampm:   [2]string{"a.m.", "p.m."}, era: [2]string{"v.Chr.", "n.Chr."},
	},
}

// Locales lists the languages whose names are known.
func Locales() []string { return []string{"en", "fr", "de", "es", "it", "pt", "nl"} }

// localeNames resolves a BCP 47 tag (en-US, fr, de_DE) to its language's
// names; "" is en-US, Spark's default.
func localeNames(tag string) (*names, error) {
	tag = strings.TrimSpace(tag)
	if tag == "" {
		return localeTable["en"], nil
	}
	lang, _, _ := strings.Cut(strings.ReplaceAll(tag, "_", "-"), "-")
	if nm, ok := localeTable[strings.ToLower(lang)]; ok && len(lang) >= 2 && len(lang) <= 3 {
		return nm, nil
	}
	return nil, fmt.Errorf("%w: locale %q: month and am-pm names are known for the languages %s only", ErrPattern, tag, strings.Join(Locales(), ", "))
}

// CheckLocale validates a locale option value.
func CheckLocale(tag string) error {
	_, err := localeNames(tag)
	return err
}
