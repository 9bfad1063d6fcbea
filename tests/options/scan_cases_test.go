package options_test

// scanCases are the behavioural cases of the scan area (owner: helper large).
func scanCases() []optionCase {
	return nil
}
