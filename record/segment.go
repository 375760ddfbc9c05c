package record

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// jsonLog is one append-only JSON Lines file: each line is written whole,
// in one write.
type jsonLog struct {
	f     *os.File
	bytes *int64
}

func openLog(path string, bytes *int64) (*jsonLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil {
		*bytes += st.Size()
	}
	return &jsonLog{f: f, bytes: bytes}, nil
}

func (l *jsonLog) add(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	n, err := l.f.Write(b)
	*l.bytes += int64(n)
	return err
}

// segmentFiles are the open logs of the segment being written.
type segmentFiles struct {
	n                int
	at               Offset
	world, decisions *jsonLog
	bytes            int64
}

func (s *segmentFiles) close() {
	if s == nil {
		return
	}
	s.world.f.Close()
	s.decisions.f.Close()
}

// beginSegment closes the segment being written, if any, and begins the
// next at at: its checkpoint (every object known), its resume file when it
// begins in the middle of a process's run, its logs; an engine process
// that begins with it is noted (restart: one that continues a
// recording). The oldest segments beyond MaxSegments go. Under r.mu.
func (r *Recorder) beginSegment(at time.Time, restart, process bool) error {
	n := 1
	if k := len(r.man.Segments); k > 0 {
		n = r.man.Segments[k-1].N + 1
	}
	off := at.Sub(r.start)
	if err := WriteObjects(filepath.Join(r.opts.Dir, ObjectsFile(n)), sortedObjects(r.known)); err != nil {
		return err
	}
	if !process {
		res := Resume{Objects: []ResumeObject{}}
		for _, ref := range sortedRefs(r.known) {
			if r.driven[kindKey{ref.APIVersion, ref.Kind}] == nil {
				continue
			}
			st := r.objects[ref]
			if st == nil || st.reconciled.IsZero() || st.changed.After(st.reconciled) || !st.wake.IsZero() && !st.wake.After(at) {
				continue // the engine looks at it at once
			}
			ro := ResumeObject{Ref: ref}
			if !st.wake.IsZero() {
				w := st.wake.Sub(r.start)
				ro.Wake = &w
			}
			res.Objects = append(res.Objects, ro)
		}
		data, _ := json.MarshalIndent(res, "", "  ")
		if err := writeFileAtomic(filepath.Join(r.opts.Dir, ResumeFile(n)), append(data, '\n')); err != nil {
			return err
		}
	}
	seg := &segmentFiles{n: n, at: off}
	var err error
	if seg.world, err = openLog(filepath.Join(r.opts.Dir, WorldFile(n)), &seg.bytes); err != nil {
		return err
	}
	if seg.decisions, err = openLog(filepath.Join(r.opts.Dir, DecisionsFile(n)), &seg.bytes); err != nil {
		seg.world.f.Close()
		return err
	}
	r.seg.close()
	r.seg = seg
	var denials []Denial
	for d, st := range r.denials {
		if st.active {
			denials = append(denials, d)
		}
	}
	r.man.Segments = append(r.man.Segments, Segment{N: n, At: off, Restart: restart, Denials: sortedDenialList(denials)})
	if process {
		host, _ := os.Hostname()
		r.man.Processes = append(r.man.Processes, Process{At: off, Host: host, PID: os.Getpid()})
	}
	for _, c := range r.gap {
		r.log(c)
	}
	r.gap = nil
	for len(r.man.Segments) > r.opts.MaxSegments {
		old := r.man.Segments[0].N
		r.man.Segments = r.man.Segments[1:]
		r.man.Dropped++
		for _, f := range []string{ObjectsFile(old), ResumeFile(old), WorldFile(old), DecisionsFile(old)} {
			if err := os.Remove(filepath.Join(r.opts.Dir, f)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return r.writeManifest()
}

// rotate begins a new segment where the logs are written up to (under
// r.mu).
func (r *Recorder) rotate() {
	if err := r.beginSegment(r.committed, false, false); err != nil && r.err == nil {
		r.err = fmt.Errorf("recording: rotate: %w", err)
	}
}

// writeManifest writes recording.json, End the time the logs are written
// up to (under r.mu).
func (r *Recorder) writeManifest() error {
	if !r.committed.IsZero() && r.committed.After(r.man.End) {
		r.man.End = r.committed.UTC()
	}
	data, err := json.MarshalIndent(r.man, "", "  ")
	if err != nil {
		return err
	}
	err = writeFileAtomic(filepath.Join(r.opts.Dir, ManifestFile), append(data, '\n'))
	if err != nil && r.err == nil {
		r.err = err
	}
	return err
}

// render brings the scenario up to date with the logs.
func (r *Recorder) render() {
	r.mu.Lock()
	r.rendered = r.opts.Now()
	r.mu.Unlock()
	if err := WriteScenario(r.opts.Dir); err != nil {
		r.opts.Logger.Warn("recording: the scenario was not written", "error", err)
	}
}

// Close ends the recording once the controller stopped: it logs every
// change still waiting, writes the manifest and the scenario, and stops
// the watches. It returns the first error writing the recording met.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return r.err
	}
	r.mu.Unlock()
	close(r.stop)
	r.cancel()
	r.wg.Wait()
	r.cache.Stop()
	r.mu.Lock()
	r.closed = true
	end := r.opts.Now()
	r.commit(end)
	r.writeManifest()
	r.seg.close()
	err := r.err
	r.mu.Unlock()
	if werr := WriteScenario(r.opts.Dir); werr != nil && err == nil {
		err = werr
	}
	return err
}
