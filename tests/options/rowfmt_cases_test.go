package options_test

// rowfmtCases are the behavioural cases of the rowfmt area's options.
func rowfmtCases() []optionCase {
	return nil
}
