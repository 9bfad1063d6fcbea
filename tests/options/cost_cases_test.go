package options_test

// costCases are the behavioural cases of the cost area's options.
func costCases() []optionCase {
	return nil
}
