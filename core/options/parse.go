package options

import (
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/options/location"
	"sort"
	"strings"
	"unicode"
)

// Parse parses and validates one stream's options. raw holds the options as
// given to spark.readStream/writeStream .option(...) (names
// case-insensitive); loc holds the stream's id, locations, source format and
// user schema. Every configuration error of the stream is reported, joined;
// each is an *OptionError wrapping ErrInvalidOption.
func Parse(raw map[string]string, loc Locations) (*Stream, error) {
	p := &parser{
		s:        defaults(),
		c:        &errs{stream: strings.TrimSpace(loc.StreamID)},
		reg:      registry(),
		explicit: map[string]bool{},
		given:    map[string]string{},
	}
	p.parse(raw, loc)
	if len(p.c.list) > 0 {
		return nil, p.c.err()
	}
	p.s.explicit = p.explicit
	return p.s, nil
}

type parser struct {
	s        *Stream
	c        *errs
	reg      map[string]*optSpec
	explicit map[string]bool   // documented names set
	given    map[string]string // documented name -> raw value
}

type rawOption struct {
	key, value string
}

func (p *parser) parse(raw map[string]string, loc Locations) {
	s := p.s
	s.ID = strings.TrimSpace(loc.StreamID)
	s.Source = strings.TrimSpace(loc.Source)
	s.Table = strings.TrimSpace(loc.Table)
	s.UserSchema = strings.TrimSpace(loc.UserSchema)
	s.Raw = make(map[string]string, len(raw))
	for k, v := range raw {
		s.Raw[k] = v
	}
	p.checkID()
	switch strings.ToLower(strings.TrimSpace(loc.SourceFormat)) {
	case "", "cloudfiles":
		s.SourceFormat = SourceCloudFiles
	case "delta":
		s.SourceFormat = SourceDelta
	default:
		p.c.add("format", loc.SourceFormat, "unknown source format: want cloudFiles (Auto Loader) or delta")
		return
	}

	// Canonical names: options are case-insensitive and a few have aliases.
	al := aliases()
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	byName := map[string]rawOption{}
	var order []string
	for _, k := range keys {
		lk := strings.ToLower(strings.TrimSpace(k))
		if a, ok := al[lk]; ok {
			lk = strings.ToLower(a)
		}
		if prev, dup := byName[lk]; dup {
			if prev.value != raw[k] {
				p.c.add(k, raw[k], fmt.Sprintf("conflicts with %s=%q (option names are case-insensitive; %s and %s are the same option)", prev.key, prev.value, prev.key, k))
			}
			continue
		}
		byName[lk] = rawOption{key: k, value: raw[k]}
		order = append(order, lk)
	}

	// validateOptions and format decide how the others are checked.
	if s.SourceFormat == SourceCloudFiles {
		for _, first := range []string{"cloudfiles.validateoptions", "cloudfiles.format"} {
			if o, ok := byName[first]; ok {
				p.apply(p.reg[first], o)
			}
		}
	}
	validate := s.SourceFormat == SourceDelta || s.CloudFiles.ValidateOptions
	for _, lk := range order {
		if lk == "cloudfiles.validateoptions" || lk == "cloudfiles.format" {
			if s.SourceFormat == SourceCloudFiles {
				continue
			}
		}
		o := byName[lk]
		spec, known := p.reg[lk]
		switch {
		case !known:
			if !validate {
				p.ignore(o.key, "unknown option")
				continue
			}
			reason, sug := p.unknownReason(), p.suggest(lk)
			if rest, cut := strings.CutPrefix(lk, "cloudfiles."); cut && strings.EqualFold(rest, sug) {
				reason = fmt.Sprintf("%s is %s, not a cloudFiles option", sug, p.reg[strings.ToLower(sug)].scope)
			}
			p.c.addErr(&OptionError{Option: o.key, Value: o.value, Kind: ErrUnknownOption, Reason: reason, Suggestion: sug})
		case !spec.appliesTo(s.SourceFormat, s.CloudFiles.Format):
			if !validate {
				p.ignore(o.key, "not applicable: "+p.scopeReason(spec))
				continue
			}
			p.c.addErr(&OptionError{Option: spec.name, Value: o.value, Kind: ErrInvalidOption,
				Reason:     p.scopeReason(spec),
				Suggestion: p.suggest(lk)})
		default:
			p.apply(spec, o)
		}
	}
	sort.Strings(s.Ignored)

	p.checkLocations(loc)
	if s.SourceFormat == SourceCloudFiles {
		p.checkCloudFiles()
	} else {
		p.checkDelta()
	}
	p.checkSink()
}

func (p *parser) apply(spec *optSpec, o rawOption) {
	if err := spec.set(p.s, o.value); err != nil {
		kind, reason := ErrInvalidOption, err.Error()
		if errors.Is(err, ErrUnsupportedOption) {
			kind = ErrUnsupportedOption
			reason = strings.TrimPrefix(reason, ErrUnsupportedOption.Error()+": ")
		}
		if !strings.EqualFold(strings.TrimSpace(o.key), spec.name) {
			reason += fmt.Sprintf(" (given as %s)", o.key)
		}
		p.c.addErr(&OptionError{Option: spec.name, Value: o.value, Reason: reason, Kind: kind})
		return
	}
	p.explicit[spec.name] = true
	p.given[spec.name] = o.value
}

func (p *parser) ignore(key, why string) {
	p.s.Ignored = append(p.s.Ignored, key)
	p.s.Warnings = append(p.s.Warnings, fmt.Sprintf("option %s ignored (%s; cloudFiles.validateOptions=false)", key, why))
}

func (p *parser) unknownReason() string {
	if p.s.SourceFormat == SourceDelta {
		return "not an option of a Delta source or the Delta sink"
	}
	return "not an Auto Loader, reader or Delta sink option (set cloudFiles.validateOptions=false to ignore unknown options)"
}

func (p *parser) scopeReason(spec *optSpec) string {
	s := p.s
	switch {
	case spec.scope == scopeReader && s.SourceFormat == SourceCloudFiles:
		var fs []string
		for _, f := range spec.formats {
			fs = append(fs, string(f))
		}
		return fmt.Sprintf("is a %s reader option; cloudFiles.format is %s", strings.Join(fs, "/"), s.CloudFiles.Format)
	case s.SourceFormat == SourceDelta:
		return "is " + spec.scope.String() + "; this stream reads a Delta table"
	}
	return "is " + spec.scope.String() + "; this stream reads files with Auto Loader (cloudFiles)"
}

// suggest returns the documented name the user probably meant by lk (lower
// case), among the options that apply to this stream.
func (p *parser) suggest(lk string) string {
	s := p.s
	ok := func(o *optSpec) bool { return o != nil && o.appliesTo(s.SourceFormat, s.CloudFiles.Format) }
	lookup := func(name string) *optSpec {
		if a, isAlias := aliases()[name]; isAlias {
			name = strings.ToLower(a)
		}
		return p.reg[name]
	}
	if rest, cut := strings.CutPrefix(lk, "cloudfiles."); cut {
		if o := lookup(rest); ok(o) {
			return o.name
		}
	}
	for _, prefix := range []string{"cloudfiles.", "spark.databricks."} {
		if o := lookup(prefix + lk); ok(o) {
			return o.name
		}
	}
	best, bestD := "", 1<<30
	for name, o := range p.reg {
		if !ok(o) {
			continue
		}
		d := min(levenshtein(lk, name), levenshtein("cloudfiles."+lk, name))
		if d < bestD || d == bestD && o.name < best {
			best, bestD = o.name, d
		}
	}
	if bestD <= max(2, len(lk)/8) {
		return best
	}
	return ""
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func sortFold(names []string) {
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.ToLower(names[i]), strings.ToLower(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
}

func (p *parser) checkID() {
	id := p.s.ID
	if id == "" {
		p.c.add("id", "", "is required: the stream id keys the file state, the schema history and the Delta txn appId")
		return
	}
	if len(id) > 255 {
		p.c.add("id", id, "is longer than 255 characters")
		return
	}
	for _, r := range id {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			p.c.add("id", id, "must not contain spaces, control characters or invalid UTF-8")
			return
		}
	}
}

// location parses a required or optional location, reporting errors under
// option.
func (p *parser) location(option, value string, required bool) (location.Location, bool) {
	if strings.TrimSpace(value) == "" {
		if required {
			p.c.add(option, "", "is required")
		}
		return location.Location{}, false
	}
	l, err := location.Parse(value)
	if err != nil {
		p.c.add(option, value, err.Error())
		return location.Location{}, false
	}
	return l, true
}

// merge reconciles a location given both in Locations and as an option.
func (p *parser) merge(option, fromOption, fromLoc string) string {
	if fromLoc == "" {
		return fromOption
	}
	if fromOption != "" && !sameLocation(fromOption, fromLoc) {
		p.c.add(option, fromOption, fmt.Sprintf("conflicts with the stream's %s %q", option, fromLoc))
	}
	return fromLoc
}

func sameLocation(a, b string) bool {
	la, errA := location.Parse(a)
	lb, errB := location.Parse(b)
	if errA != nil || errB != nil {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	return la == lb
}

type placed struct {
	src, table     location.Location
	srcOK, tableOK bool
	// through is "" for the locations as written, and a note for their
	// real paths.
	through string
}

// real returns pl with its locations' real paths.
func (pl placed) real() placed {
	pl.src, pl.table = location.Real(pl.src), location.Real(pl.table)
	pl.through = " (following symbolic links)"
	return pl
}

func (p *parser) checkLocations(loc Locations) {
	s := p.s
	srcLoc, srcOK := p.location("source", s.Source, true)
	tblLoc, tblOK := p.location("table", s.Table, true)
	pl := placed{src: srcLoc, table: tblLoc, srcOK: srcOK, tableOK: tblOK}
	// Each check runs on the locations as written and, when that passes, on
	// their real paths (symbolic links resolved): a checkpoint reached
	// through a link is still inside the source.
	for _, pl := range []placed{pl, pl.real()} {
		srcLoc, tblLoc := pl.src, pl.table
		if srcOK && tblOK && srcLoc.Overlaps(tblLoc) {
			if s.SourceFormat == SourceDelta {
				p.c.add("table", s.Table, fmt.Sprintf("is or overlaps the source table %s%s: a stream cannot read its own output", srcLoc, pl.through))
			} else {
				p.c.add("table", s.Table, fmt.Sprintf("overlaps the source directory %s%s: the table's files would be ingested again", srcLoc, pl.through))
			}
			break
		}
	}

	s.Sink.CheckpointLocation = p.merge("checkpointLocation", s.Sink.CheckpointLocation, strings.TrimSpace(loc.CheckpointLocation))
	if s.Sink.CheckpointLocation == "" {
		p.c.add("checkpointLocation", "", "is required: the stream's progress and state live there (one location per stream)")
	} else if l, ok := p.location("checkpointLocation", s.Sink.CheckpointLocation, true); ok {
		p.placement("checkpointLocation", s.Sink.CheckpointLocation, l, pl, "its files would be ingested as data")
	}

	sl := strings.TrimSpace(loc.SchemaLocation)
	if s.SourceFormat == SourceDelta && sl != "" {
		p.c.add("cloudFiles.schemaLocation", sl, "applies to Auto Loader sources only; this stream reads a Delta table")
		sl = ""
	}
	s.CloudFiles.SchemaLocation = p.merge("cloudFiles.schemaLocation", s.CloudFiles.SchemaLocation, sl)
	if s.CloudFiles.SchemaLocation != "" {
		if l, ok := p.location("cloudFiles.schemaLocation", s.CloudFiles.SchemaLocation, false); ok {
			p.placement("cloudFiles.schemaLocation", s.CloudFiles.SchemaLocation, l, pl, "its files would be ingested as data")
		}
	}

	md := s.CloudFiles.MoveDestination
	switch {
	case s.CloudFiles.CleanSource == CleanMove && md == "":
		p.c.add("cloudFiles.cleanSource.moveDestination", "", "is required when cloudFiles.cleanSource is MOVE")
	case md != "" && s.CloudFiles.CleanSource != CleanMove:
		p.c.add("cloudFiles.cleanSource.moveDestination", md, fmt.Sprintf("applies only when cloudFiles.cleanSource is MOVE (it is %s)", s.CloudFiles.CleanSource))
	case md != "":
		l, ok := p.location("cloudFiles.cleanSource.moveDestination", md, false)
		if !ok || !srcOK {
			break
		}
		switch {
		case l.Scheme != srcLoc.Scheme:
			p.c.add("cloudFiles.cleanSource.moveDestination", md, fmt.Sprintf("must be on the same storage as the source %s", srcLoc))
		case l.Bucket != srcLoc.Bucket:
			p.c.add("cloudFiles.cleanSource.moveDestination", md, fmt.Sprintf("must be in the same bucket as the source (bucket %q); moving across buckets is not supported", srcLoc.Bucket))
		default:
			p.placement("cloudFiles.cleanSource.moveDestination", md, l, pl, "moved files would be ingested again")
		}
	}
	p.checkBadRecordsPath(pl)
}

// checkBadRecordsPath keeps badRecordsPath out of the source (its files
// would be ingested) and out of the table other than under a _ folder.
func (p *parser) checkBadRecordsPath(pl placed) {
	br := p.s.Reader.BadRecordsPath
	if br == "" {
		return
	}
	if l, ok := p.location("badRecordsPath", br, false); ok {
		p.placement("badRecordsPath", br, l, pl, "its files would be ingested as data")
	}
}

// placement checks a stream-owned location against its source and table:
// as written, then (if that passes) with symbolic links resolved.
func (p *parser) placement(option, value string, l location.Location, pl placed, inSource string) {
	n := len(p.c.list)
	p.placementOf(option, value, l, pl, inSource)
	if len(p.c.list) == n {
		p.placementOf(option, value, location.Real(l), pl.real(), inSource)
	}
}

func (p *parser) placementOf(option, value string, l location.Location, pl placed, inSource string) {
	if pl.tableOK {
		if rel, in := pl.table.Rel(l); in {
			switch {
			case rel == "":
				p.c.add(option, value, "is the table directory itself"+pl.through)
			case !location.SafeInTable(rel):
				p.c.add(option, value, fmt.Sprintf("is inside the table directory %s%s other than under a folder starting with _ (VACUUM deletes what Delta does not manage, but skips _ folders: use e.g. %s)", pl.table, pl.through, pl.table.Child("_checkpoints")))
			}
			return
		}
		if l.Contains(pl.table) {
			p.c.add(option, value, fmt.Sprintf("contains the table directory %s%s", pl.table, pl.through))
			return
		}
	}
	if pl.srcOK {
		if rel, in := pl.src.Rel(l); in {
			if p.s.SourceFormat == SourceDelta {
				if rel == "" || !location.SafeInTable(rel) {
					p.c.add(option, value, fmt.Sprintf("is inside the source table %s%s other than under a folder starting with _ (VACUUM would delete it)", pl.src, pl.through))
				}
				return
			}
			p.c.add(option, value, fmt.Sprintf("is inside the source directory %s%s: %s", pl.src, pl.through, inSource))
		}
	}
}

func (p *parser) checkCloudFiles() {
	s, cf := p.s, &p.s.CloudFiles
	if cf.Format == "" {
		if _, failed := p.failed("cloudFiles.format"); !failed {
			p.c.add("cloudFiles.format", "", "is required (no default, no detection): one of "+formatList())
		}
		return
	}
	fixed := cf.Format.HasFixedSchema()
	modeSet := p.explicit["cloudFiles.schemaEvolutionMode"]
	if !modeSet {
		cf.SchemaEvolutionMode = EvolveAddNewColumns
		if fixed || s.UserSchema != "" {
			cf.SchemaEvolutionMode = EvolveNone
		}
	} else if fixed && cf.SchemaEvolutionMode != EvolveNone {
		s.Warnings = append(s.Warnings, fmt.Sprintf("cloudFiles.schemaEvolutionMode=%s has no effect: %s has a fixed schema", cf.SchemaEvolutionMode, cf.Format))
	}
	mode := cf.SchemaEvolutionMode
	needLoc := !fixed && (s.UserSchema == "" || mode.Evolves())
	if needLoc && cf.SchemaLocation == "" {
		if modeSet && mode.Evolves() {
			p.c.add("cloudFiles.schemaEvolutionMode", p.given["cloudFiles.schemaEvolutionMode"], "evolves the schema and needs cloudFiles.schemaLocation to keep the schema history")
		} else {
			p.c.add("cloudFiles.schemaLocation", "", "is required to infer the schema (no user schema is given): the schema history is kept there and a restart never re-infers")
		}
	}

	switch {
	case p.explicit["cloudFiles.rescuedDataColumn"] && fixed:
		s.Warnings = append(s.Warnings, fmt.Sprintf("cloudFiles.rescuedDataColumn ignored: %s has a fixed schema", cf.Format))
		cf.RescuedDataColumn = ""
	case p.explicit["cloudFiles.rescuedDataColumn"]:
	case fixed || mode == EvolveNone:
		cf.RescuedDataColumn = ""
	default:
		cf.RescuedDataColumn = DefaultRescuedDataColumn
	}
	for _, c := range cf.PartitionColumns {
		if cf.RescuedDataColumn != "" && strings.EqualFold(c, cf.RescuedDataColumn) {
			p.c.add("cloudFiles.partitionColumns", p.given["cloudFiles.partitionColumns"], fmt.Sprintf("column %q is also the rescued data column", c))
		}
	}

	if s.Reader.RecursiveFileLookup && len(cf.PartitionColumns) > 0 {
		p.c.add("recursiveFileLookup", p.given["recursiveFileLookup"], "cannot be true together with cloudFiles.partitionColumns: recursiveFileLookup turns partition inference off (Spark refuses a partition spec with it)")
	}
	if a, b := s.Reader.ModifiedAfter, s.Reader.ModifiedBefore; a != nil && b != nil && !b.After(*a) {
		p.c.add("modifiedBefore", p.given["modifiedBefore"], fmt.Sprintf("is not after modifiedAfter=%q: no file can match both", p.given["modifiedAfter"]))
	}
	p.checkReader()
	if cf.Format == FormatXML && s.Reader.Options["rowTag"] == "" {
		if _, failed := p.failed("rowTag"); !failed {
			p.c.add("rowTag", "", "is required for cloudFiles.format xml: name the element that is a row (rowTag=book)")
		}
	}
	if mode == EvolveAddNewColumnsWithTypeWidening && cf.Format.Untyped() {
		if p.explicit["prefersDecimal"] && !s.Reader.PrefersDecimal {
			p.c.add("prefersDecimal", p.given["prefersDecimal"], "cannot be false with cloudFiles.schemaEvolutionMode=addNewColumnsWithTypeWidening")
		}
		s.Reader.PrefersDecimal = true
	}
	if fixed && cf.SchemaHints != "" {
		s.Warnings = append(s.Warnings, fmt.Sprintf("cloudFiles.schemaHints ignored: %s has a fixed schema", cf.Format))
	}
	if cf.QueueURL != "" && !cf.UseNotifications {
		s.Warnings = append(s.Warnings, "cloudFiles.queueUrl has no effect unless cloudFiles.useNotifications=true")
	}
	p.checkText()
}

// checkReader checks the reader options against each other and the
// stream's columns.
func (p *parser) checkReader() {
	s, r := p.s, &p.s.Reader
	if pc := r.ParserCaseSensitive; pc != nil {
		if p.explicit["readerCaseSensitive"] && *pc != r.CaseSensitive {
			p.c.add("parserCaseSensitive", p.given["parserCaseSensitive"], fmt.Sprintf("contradicts readerCaseSensitive=%q (parserCaseSensitive is its deprecated form)", p.given["readerCaseSensitive"]))
		}
		r.CaseSensitive = *pc
	}
	if c := r.ColumnNameOfCorruptRecord; c != "" {
		if rc := s.CloudFiles.RescuedDataColumn; rc != "" && strings.EqualFold(c, rc) {
			p.c.add("columnNameOfCorruptRecord", p.given["columnNameOfCorruptRecord"], fmt.Sprintf("is also the rescued data column %q: the two columns must differ", rc))
		}
		for _, pc := range s.CloudFiles.PartitionColumns {
			if strings.EqualFold(c, pc) {
				p.c.add("columnNameOfCorruptRecord", p.given["columnNameOfCorruptRecord"], fmt.Sprintf("is also the partition column %q", pc))
			}
		}
	}
	if r.BadRecordsPath == "" {
		return
	}
	if p.explicit["mode"] && r.Mode != "PERMISSIVE" {
		s.Warnings = append(s.Warnings, fmt.Sprintf("mode=%s does not apply to bad records while badRecordsPath is set: they are recorded there and left out, and the load goes on", r.Mode))
	}
	for _, o := range []struct {
		name string
		on   bool
	}{{"ignoreCorruptFiles", r.IgnoreCorruptFiles}, {"ignoreMissingFiles", r.IgnoreMissingFiles}} {
		if p.explicit[o.name] && !o.on {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s=false does not apply while badRecordsPath is set: unreadable and missing files are recorded there and skipped", o.name))
		}
	}
}

// failed reports whether an error was already recorded for option.
func (p *parser) failed(option string) (*OptionError, bool) {
	for _, e := range p.c.list {
		var oe *OptionError
		if errors.As(e, &oe) && oe.Option == option {
			return oe, true
		}
	}
	return nil, false
}

func (p *parser) checkDelta() {
	s, d := p.s, &p.s.Delta
	if d.StartingVersion != nil && d.StartingTimestamp != nil {
		p.c.add("startingVersion", p.given["startingVersion"], fmt.Sprintf("cannot be set together with startingTimestamp=%q: set one of them", p.given["startingTimestamp"]))
	}
	n := 0
	for _, on := range []bool{d.SkipChangeCommits, d.IgnoreChanges, d.IgnoreDeletes} {
		if on {
			n++
		}
	}
	if d.IgnoreChanges {
		s.Warnings = append(s.Warnings, "ignoreChanges is a legacy option (replaced by skipChangeCommits): rewritten files are re-emitted, so downstream sees duplicates")
	}
	if d.IgnoreDeletes {
		s.Warnings = append(s.Warnings, "ignoreDeletes is a legacy option: only whole-partition deletes are accepted; prefer skipChangeCommits")
	}
	if n > 1 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("several change options set; %s applies (skipChangeCommits > ignoreChanges > ignoreDeletes)", d.ChangePolicy()))
	}
}

func (p *parser) checkSink() {
	s := p.s
	if s.SourceFormat == SourceDelta {
		p.checkDeltaSourceSink()
	}
	if p.explicit["txnVersion"] && s.SourceFormat == SourceCloudFiles {
		if !p.explicit["txnAppId"] {
			p.c.add("txnVersion", p.given["txnVersion"], "needs txnAppId: Delta identifies an idempotent write by both")
		} else {
			s.Warnings = append(s.Warnings, fmt.Sprintf("txnVersion=%s: append once: one batch of every outstanding file is written with this txnAppId and txnVersion; a run whose txnVersion the table already holds writes nothing", p.given["txnVersion"]))
		}
	}
	if s.Sink.TxnAppID == "" {
		s.Sink.TxnAppID = s.ID
	}
	switch {
	case len(s.Sink.MergeKeys) > 0 && s.Sink.OutputMode == OutputComplete:
		p.c.add("mergeKeys", p.given["mergeKeys"], "cannot be combined with outputMode=complete: complete replaces the table, mergeKeys upserts into it")
	case len(s.Sink.MergeKeys) > 0:
		s.Sink.OutputMode = OutputUpdate
	case s.Sink.OutputMode == OutputUpdate:
		p.c.add("outputMode", p.given["outputMode"], "update needs mergeKeys: the Delta sink applies a batch's changed rows as an upsert (MERGE) by key columns")
	}
	if s.Sink.ReplaceWhere != "" {
		switch {
		case len(s.Sink.MergeKeys) > 0:
			p.c.add("replaceWhere", p.given["replaceWhere"], "cannot be combined with mergeKeys: replaceWhere overwrites the rows matching a predicate, mergeKeys upserts by key")
		case s.Sink.OverwriteSchema:
			p.c.add("replaceWhere", p.given["replaceWhere"], "cannot be combined with overwriteSchema: a selective overwrite keeps the table's schema (Delta applies overwriteSchema only when replaceWhere is not set)")
		}
	}
	for _, c := range s.Sink.PartitionBy {
		for _, pc := range s.CloudFiles.PartitionColumns {
			if strings.EqualFold(c, pc) {
				p.c.add("partitionBy", p.given["partitionBy"], fmt.Sprintf("column %s is already a partition column by cloudFiles.partitionColumns (from the source directories)", c))
			}
		}
	}
	if s.Sink.OverwriteSchema && s.Sink.OutputMode != OutputComplete {
		p.c.add("overwriteSchema", p.given["overwriteSchema"], "applies to outputMode=complete only (Delta replaces the schema only when it overwrites the table)")
	}
	if s.Sink.Trigger.Kind == TriggerOnce {
		s.Warnings = append(s.Warnings, "trigger once is deprecated: it processes everything in one batch and ignores the rate limits; use availableNow")
	}
}

// checkDeltaSourceSink refuses the sink options a Delta-source stream's
// sink (core/deltasource) does not apply, rather than ignore them: it
// commits every batch with txn{txnAppId, batch id} (no append once) and
// sets no table properties.
func (p *parser) checkDeltaSourceSink() {
	const why = "not for a Delta-source stream"
	if p.explicit["txnVersion"] {
		p.c.addErr(&OptionError{Option: "txnVersion", Value: p.given["txnVersion"], Kind: ErrUnsupportedOption,
			Reason: why + ": its sink commits each batch with txn{txnAppId, batch id}; append once (txnVersion) applies to Auto Loader streams"})
	}
	names := make([]string, 0, len(p.s.Sink.TableProperties))
	for name := range p.s.Sink.TableProperties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p.c.addErr(&OptionError{Option: name, Value: p.given[name], Kind: ErrUnsupportedOption,
			Reason: why + ": its sink sets no table properties; set it on the sink table with a Delta engine (ALTER TABLE ... SET TBLPROPERTIES)"})
	}
}
