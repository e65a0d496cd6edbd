//go:build windows

package gemini

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// setProcessGroup starts the CLI in a new process group, away from the
// server's console signals, and without a console window of its own: the
// tray is a GUI program, and a console program it starts would flash one.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true,
		CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW}
}

// jobs are the job objects of the CLI runs in progress, by the CLI's process ID.
var jobs sync.Map

// contain puts the CLI, and so every process it starts later (its MCP servers), in a job object of its own that
// kills them all when its last handle closes. Only this process holds the handle, so no process of the run
// outlives the server, however it ends: a normal exit, a crash or being killed. A process the CLI started before
// it was put in the job (it is put there right after it starts, before node has loaded) is not in it. Without a
// job (the system refused one) the run is stopped as a tree, by taskkill.
func contain(p *os.Process) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
		LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE}}
	_, err = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err == nil {
		err = assign(job, p.Pid)
	}
	if err != nil {
		_ = windows.CloseHandle(job)
		return
	}
	jobs.Store(p.Pid, job)
}

func assign(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(job, h)
}

// terminate kills the CLI's processes: Windows has no SIGTERM to ask
// politely with.
func terminate(p *os.Process) error {
	if job, ok := jobs.Load(p.Pid); ok {
		return windows.TerminateJobObject(job.(windows.Handle), 1)
	}
	kill := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(p.Pid))
	kill.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: windows.CREATE_NO_WINDOW}
	if err := kill.Run(); err != nil {
		return p.Kill()
	}
	return nil
}

// killPipeHolders does nothing: the run's job object holds every process it started.
func killPipeHolders(...*os.File) {}

// killGroup kills whatever is left of the run once the CLI has exited, and
// lets its job go.
func killGroup(p *os.Process) {
	if job, ok := jobs.LoadAndDelete(p.Pid); ok {
		_ = windows.TerminateJobObject(job.(windows.Handle), 1)
		_ = windows.CloseHandle(job.(windows.Handle))
	}
}
