package options_test

// sinkmodeCases are the behavioural cases of the sinkmode area's options.
func sinkmodeCases() []optionCase {
	return nil
}
