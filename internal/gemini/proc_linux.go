package gemini

import "syscall"

// setParentDeathSignal has the kernel kill the CLI when the server dies without ending it (SIGKILL, a crash): a
// warm CLI whose stdin closes before its prompt would otherwise send the API a blank one. The kernel sends it
// when the thread that started the CLI exits; Go ends a thread only when a goroutine locked to it returns, and
// no goroutine that starts a CLI is locked to its thread.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
