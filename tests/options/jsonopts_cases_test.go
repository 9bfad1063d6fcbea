package options_test

// jsonoptsCases are the behavioural cases of the jsonopts area's options.
func jsonoptsCases() []optionCase {
	return nil
}
