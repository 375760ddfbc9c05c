//go:build !linux

package controlplane

import "syscall"

// sysProcAttr puts a child in a process group of its own. Only Linux can
// have the kernel kill it when this process dies; elsewhere the janitor
// does what it can.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func janitorProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
