package options_test

// sinkCases are the behavioural cases of the sink area (owner: helper identity).
func sinkCases() []optionCase {
	return nil
}
