package gemini

import "golang.org/x/sys/windows"

// stillActive is the exit code GetExitCodeProcess gives a process that has not ended (STILL_ACTIVE).
const stillActive = 259

// procStart is the time process pid was created, in 100-nanosecond intervals since 1601 (GetProcessTimes); 0 when
// the process does not exist or has ended (its object outlives it while a handle to it is open).
func procStart(pid int) uint64 {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) != nil || code != stillActive {
		return 0
	}
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return 0
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime)
}

// recordsRuns is false: a run's job object (contain) ends its processes with the server, however it ends, so no
// run is recorded to be ended later. The start times still tell SweepLeftovers which server of a documents folder
// is gone.
const recordsRuns = false

func groupMembers(runRecord) []int { return nil }

func killGroupID(int) {}
