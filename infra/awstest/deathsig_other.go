//go:build !linux

package awstest

import "os/exec"

// dieWithParent is a no-op where the kernel offers no parent-death signal:
// TestMain's Stop ends the emulator on a normal exit.
func dieWithParent(*exec.Cmd) {}
