package awstest

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the emulator exit when the test binary does, even
// when it panics or is killed by a test timeout (TestMain's Stop does not
// run then): the kernel sends SIGTERM on the parent's death.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
