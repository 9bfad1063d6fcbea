package options_test

// deltasrcCases are the behavioural cases of the deltasrc area's options.
func deltasrcCases() []optionCase {
	return nil
}
