package options_test

// maintCases are the behavioural cases of the maint area's options.
func maintCases() []optionCase {
	return nil
}
