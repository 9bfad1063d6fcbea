package options_test

// discoveryCases are the behavioural cases of the discovery area (owner: helper listing).
func discoveryCases() []optionCase {
	return nil
}
