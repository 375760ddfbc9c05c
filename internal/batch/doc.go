// Package batch tunes the Go runtime for statecraft's batch commands
// (sim, test, verify): runs that build a large simulated cluster, allocate
// a great deal while they step it, print, and exit. It owns those
// settings (the collector's target and a soft memory limit); the commands decide when to apply it, and the engine and the
// simulator know nothing of it.
package batch
