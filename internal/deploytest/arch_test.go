package deploytest

import (
	"debug/elf"
	"runtime"
)

func goarch() string { return runtime.GOARCH }

// archOf is GOARCH's name for an ELF machine.
func archOf(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "amd64"
	case elf.EM_AARCH64:
		return "arm64"
	case elf.EM_386:
		return "386"
	case elf.EM_ARM:
		return "arm"
	case elf.EM_PPC64:
		return "ppc64le"
	case elf.EM_S390:
		return "s390x"
	case elf.EM_RISCV:
		return "riscv64"
	}
	return m.String()
}
