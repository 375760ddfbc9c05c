package controlplane

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// janitorScript runs in a process of its own that outlives this one. It
// reads lines from a pipe whose write end only this process holds: "pid N"
// names a process group to kill, "dir D" a
// folder to remove, "done" that everything was cleaned up in order. When the
// pipe closes without "done" (this process died, by SIGKILL for instance),
// it kills the groups, waits for them to go (5 s at most) and removes the
// folders.
const janitorScript = `
pids=
dirs=
while IFS= read -r line; do
	case $line in
	"pid "*) pids="$pids ${line#pid }" ;;
	"dir "*) dirs="$dirs
${line#dir }" ;;
	done) exit 0 ;;
	esac
done
for p in $pids; do kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null; done
i=0
for p in $pids; do
	while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
done
IFS='
'
for d in $dirs; do [ -n "$d" ] && rm -rf -- "$d"; done
`

// janitor cleans up after this process if it dies without stopping the
// control plane: see janitorScript. A nil janitor does nothing (no /bin/sh,
// or it could not start).
type janitor struct {
	mu  sync.Mutex
	w   *os.File
	cmd *exec.Cmd
}

func startJanitor() *janitor {
	sh, err := exec.LookPath("sh")
	if err != nil {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	cmd := exec.Command(sh, "-c", janitorScript)
	cmd.Stdin = r
	// Its own process group: a Ctrl-C in the terminal must not end it
	// before it is needed. No parent-death signal: it is what remains.
	cmd.SysProcAttr = janitorProcAttr()
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil
	}
	r.Close()
	go cmd.Wait() //nolint:errcheck // reaped, nothing to report
	return &janitor{w: w, cmd: cmd}
}

func (j *janitor) say(format string, args ...any) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.w != nil {
		fmt.Fprintf(j.w, format+"\n", args...)
	}
}

// process asks the janitor to kill pid's process group if this process
// dies first.
func (j *janitor) process(pid int) { j.say("pid %d", pid) }

// dir asks the janitor to remove a folder if this process dies first.
func (j *janitor) dir(path string) {
	if !strings.ContainsAny(path, "\n") {
		j.say("dir %s", path)
	}
}

// done tells the janitor everything was cleaned up, and lets it go.
func (j *janitor) done() {
	if j == nil {
		return
	}
	j.say("done")
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.w != nil {
		j.w.Close()
		j.w = nil
	}
}

// childrenIn returns the pids of this process's children whose command line
// mentions one of dirs: the processes envtest started for a control plane
// whose folders are below them (it does not say their pids). Linux only;
// elsewhere nil.
func childrenIn(dirs ...string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	me := strconv.Itoa(os.Getpid())
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 || fields[1] != me {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		for _, dir := range dirs {
			if strings.Contains(string(cmdline), dir) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}
