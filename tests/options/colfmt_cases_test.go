package options_test

// colfmtCases are the behavioural cases of the colfmt area's options.
func colfmtCases() []optionCase {
	return nil
}
