package controlplane

import "syscall"

// sysProcAttr puts a child in a process group of its own (a Ctrl-C in the
// terminal reaches this process, which stops the child in order) and has
// the kernel kill it if this process dies first, SIGKILL included.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// janitorProcAttr puts the janitor in a process group of its own, without a
// parent-death signal: it is what remains when this process dies.
func janitorProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
