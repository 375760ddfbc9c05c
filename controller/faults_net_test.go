package controller_test

// The network of a fault schedule on kube-apiserver: every request each
// controller process makes goes through a procRT, which records it, counts
// the writes (for crash points), refuses everything once its process has
// crashed, and rewrites watch streams.
//
// Watch faults are made by rewriting the watch responses the informers
// read (an http.RoundTripper), not by wrapping the informers' event
// handlers: client-go's reflector, DeltaFIFO, store and resourceVersion
// bookkeeping all run unchanged on a stream that arrives late, out of
// step, with events missing or repeated, which is what a slow network, a
// loaded API server or a lost connection presents to them. A wrapper
// around the handlers would leave the store fresh while the handlers lag,
// which no real cache does. A dropped event is one superseded by a later
// event of the same object before it was delivered (the informer never
// sees that version: Sieve's unobserved state); a stream that loses
// events otherwise is a broken watch, which the API server ends with 410
// Expired, and the filter does that too now and then, making the
// reflector list again.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// watchMode is what a schedule does to watch streams.
type watchMode int

const (
	watchFresh     watchMode = iota
	watchStale               // hold the last N events (or up to lagFor)
	watchDelay               // delay every event by up to lagFor, in order
	watchDrop                // hold events up to lagFor; one superseded meanwhile is dropped; now and then 410 Expired
	watchDuplicate           // deliver some events twice
)

func (m watchMode) String() string {
	return [...]string{"fresh", "stale", "delay", "drop", "duplicate"}[m]
}

// reqRecord is one request of a controller process.
type reqRecord struct {
	At     time.Time
	Proc   string
	Method string
	Path   string
	Query  string
	DryRun bool
	Status int // 0: no response
	Body   []byte
}

func (r reqRecord) write() bool {
	return r.Method != http.MethodGet && !r.DryRun
}

// faultNet is shared by the processes of one schedule.
type faultNet struct {
	mu       sync.Mutex
	log      []reqRecord
	writes   int            // counted writes so far
	injected map[string]int // faults injected, by kind
	// counts says which writes count for crash points (the schedule's own
	// objects, not Events or Leases).
	counts func(rec reqRecord) bool
	// onWrite, when set, is called (outside the lock, in the request's
	// goroutine) after the n-th counted write, made by process proc, got
	// its response.
	onWrite func(n int, proc string)

	// watches counts the open watch streams of each process and resource
	// (reflectors watch a resource, each for as long as its stream lasts);
	// watchChanged is when one last began or ended.
	watches      map[watchKey]*watchCount
	watchChanged time.Time

	on     atomic.Bool // watch faults on
	mode   watchMode
	n      int           // watchStale: events held
	lagFor time.Duration // bound on how long an event is held
	rng    *rand.Rand
}

func newFaultNet(seed uint64, counts func(reqRecord) bool) *faultNet {
	return &faultNet{injected: map[string]int{}, watches: map[watchKey]*watchCount{}, counts: counts, rng: rand.New(rand.NewPCG(seed, 18)), lagFor: 2 * time.Second}
}

func (f *faultNet) inject(kind string) {
	f.mu.Lock()
	f.injected[kind]++
	f.mu.Unlock()
}

func (f *faultNet) roll() float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rng.Float64()
}

func (f *faultNet) records() []reqRecord {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]reqRecord(nil), f.log...)
}

// informerRead tells an informer's list or watch (client-go's reflector
// lists in pages, with limit, and watches with watch=true) from the
// engine's other reads and leader election's.
func (r reqRecord) informerRead() bool {
	return r.Method == http.MethodGet && !isEventOrLease(r.Path) && (strings.Contains(r.Query, "watch=true") || strings.Contains(r.Query, "limit="))
}

// watchKey names a resource watched by one process (its dead flag, which
// a restarted process of the same name does not share).
type watchKey struct {
	dead *atomic.Bool
	path string
}

type watchCount struct{ open int }

// watchBody marks its watch stream ended when the reflector reads its end
// or closes it.
type watchBody struct {
	io.ReadCloser
	net  *faultNet
	key  watchKey
	once sync.Once
}

func (b *watchBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.ended()
	}
	return n, err
}

func (b *watchBody) Close() error {
	b.ended()
	return b.ReadCloser.Close()
}

func (b *watchBody) ended() {
	b.once.Do(func() {
		b.net.mu.Lock()
		b.net.watches[b.key].open--
		b.net.watchChanged = time.Now()
		b.net.mu.Unlock()
	})
}

// waitInformersSettled waits (at most max) until every live process has
// a watch open on every resource it watched, none begun or ended for
// settle, and no informer list for settle: after an API server restart
// or a dropped watch, a reflector lists or watches again after its
// backoff, seconds later, and what it then learns is news to its
// process, which acts on it; the world is not quiet from the
// controller's view before that.
func (f *faultNet) waitInformersSettled(settle, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		last := f.watchChanged
		for _, rec := range f.log {
			if rec.informerRead() && rec.At.After(last) {
				last = rec.At
			}
		}
		open := true
		for k, w := range f.watches {
			if w.open <= 0 && !k.dead.Load() {
				open = false
			}
		}
		f.mu.Unlock()
		if open && time.Since(last) >= settle {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (f *faultNet) writeCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

// procRT is one controller process's transport.
type procRT struct {
	net  *faultNet
	proc string
	dead *atomic.Bool
	next http.RoundTripper
}

var errCrashed = errors.New("injected: the process crashed")

func (p procRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if p.dead.Load() {
		return nil, errCrashed
	}
	rec := reqRecord{At: time.Now(), Proc: p.proc, Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
		DryRun: req.URL.Query().Get("dryRun") != ""}
	if rec.write() && req.GetBody != nil {
		if b, err := req.GetBody(); err == nil {
			rec.Body, _ = io.ReadAll(b)
			b.Close()
		}
	}
	resp, err := p.next.RoundTrip(req)
	if err == nil {
		rec.Status = resp.StatusCode
		if req.URL.Query().Get("watch") == "true" && resp.StatusCode == http.StatusOK {
			if p.net.on.Load() && p.net.mode != watchFresh {
				resp.Body = newWatchFilter(resp.Body, p.net)
			}
			key := watchKey{p.dead, req.URL.Path}
			p.net.mu.Lock()
			w := p.net.watches[key]
			if w == nil {
				w = &watchCount{}
				p.net.watches[key] = w
			}
			w.open++
			p.net.watchChanged = time.Now()
			p.net.mu.Unlock()
			resp.Body = &watchBody{ReadCloser: resp.Body, net: p.net, key: key}
		}
	}
	if p.dead.Load() && rec.write() {
		// The process crashed while this write was in flight: it reached
		// the server, and nothing after it does.
		rec.Proc += " (crashing)"
	}
	p.net.mu.Lock()
	p.net.log = append(p.net.log, rec)
	n := 0
	if rec.write() && rec.Status != 0 && p.net.counts(rec) {
		p.net.writes++
		n = p.net.writes
	}
	hook := p.net.onWrite
	p.net.mu.Unlock()
	if n > 0 && hook != nil {
		hook(n, p.proc)
	}
	return resp, err
}

// watchEvent is the part of a watch event the filter reads.
type watchEvent struct {
	Type   string `json:"type"`
	Object struct {
		Metadata struct {
			Namespace, Name string
		} `json:"metadata"`
	} `json:"object"`
}

// pending is an event read and not yet delivered.
type pending struct {
	data    []byte
	key     string
	due     time.Time
	dropped bool
}

// newWatchFilter returns the body the informer reads instead of src.
func newWatchFilter(src io.ReadCloser, f *faultNet) io.ReadCloser {
	pr, pw := io.Pipe()
	var mu sync.Mutex
	var queue []*pending
	srcDone := make(chan error, 1)
	expire := f.mode == watchDrop && f.roll() < 0.3 // this stream ends with 410 Expired
	go func() {
		dec := json.NewDecoder(src)
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				srcDone <- err
				return
			}
			var ev watchEvent
			_ = json.Unmarshal(raw, &ev)
			p := &pending{data: append([]byte(raw), '\n'), key: ev.Object.Metadata.Namespace + "/" + ev.Object.Metadata.Name, due: time.Now()}
			mu.Lock()
			switch {
			case ev.Type == "BOOKMARK" || ev.Type == "ERROR":
			case f.mode == watchDelay:
				p.due = time.Now().Add(time.Duration(f.roll() * float64(f.lagFor)))
				f.inject("watch event delayed")
			case f.mode == watchDrop:
				p.due = time.Now().Add(time.Duration(f.roll() * float64(f.lagFor)))
				for _, q := range queue {
					if q.key == p.key && !q.dropped {
						q.dropped = true
						f.inject("watch event dropped")
					}
				}
			case f.mode == watchStale:
				p.due = time.Now().Add(f.lagFor)
				f.inject("watch event held back")
			case f.mode == watchDuplicate && f.roll() < 0.3:
				queue = append(queue, &pending{data: p.data, key: p.key, due: p.due})
				f.inject("watch event duplicated")
			}
			queue = append(queue, p)
			mu.Unlock()
		}
	}()
	go func() {
		defer src.Close()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		var ended error
		delivered := 0
		for {
			select {
			case err := <-srcDone:
				ended = err
			case <-tick.C:
			}
			mu.Lock()
			var out bytes.Buffer
			now := time.Now()
			fresh := !f.on.Load()
			for len(queue) > 0 {
				p := queue[0]
				// In order: an event waits for those before it. A stale
				// stream keeps the last N events, each for lagFor at most.
				release := fresh || ended != nil || !now.Before(p.due) || f.mode == watchStale && len(queue) > f.n
				if !release {
					break
				}
				queue = queue[1:]
				if p.dropped {
					continue
				}
				out.Write(p.data)
				delivered++
			}
			mu.Unlock()
			if out.Len() > 0 {
				if _, err := pw.Write(out.Bytes()); err != nil {
					return // the informer closed the stream
				}
			}
			if expire && delivered >= 3 && !fresh {
				f.inject("watch expired (410)")
				pw.Write([]byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected: too old resource version","reason":"Expired","code":410}}` + "\n"))
				pw.Close()
				return
			}
			if ended != nil {
				mu.Lock()
				empty := len(queue) == 0
				mu.Unlock()
				if empty {
					if errors.Is(ended, io.EOF) {
						pw.Close()
					} else {
						pw.CloseWithError(ended)
					}
					return
				}
			}
		}
	}()
	return pr
}

// isEventOrLease tells the writes that never count for crash points.
func isEventOrLease(path string) bool {
	return strings.Contains(path, "/events") || strings.Contains(path, "/leases/") || strings.HasSuffix(path, "/leases")
}
