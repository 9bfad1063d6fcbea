package options_test

// readerCases are the behavioural cases of the reader area (owner: helper reader).
func readerCases() []optionCase {
	return nil
}
