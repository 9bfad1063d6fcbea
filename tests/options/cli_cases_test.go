package options_test

// cliCases are the behavioural cases of the cli area (owner: helper robust).
func cliCases() []optionCase {
	return nil
}
