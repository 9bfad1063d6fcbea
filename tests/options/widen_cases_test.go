package options_test

// widenCases are the behavioural cases of the widen area's options.
func widenCases() []optionCase {
	return nil
}
