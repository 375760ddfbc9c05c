// Package record is statecraft's flight recorder: it records what the
// engine saw and decided on a real cluster, and replays that history on the
// simulator's virtual clock, under the rules it was recorded with or any
// other version of them.
//
// A Recorder watches the kinds the loaded machines drive and read and
// sees every reconcile of a controller (controller.Observer). It writes a
// recording folder (spec/recording.md): segments, each a checkpoint of
// every recorded object, the changes watches showed (the engine's own and
// other actors', with times relative to the start) and the engine's
// decisions (transitions with their clause values, writes with their
// bodies, problems); and, rendered from them, a scenario the simulator
// runs (recording.scenario.hcl, with its objects YAML, timed at events,
// and the denials the engine met as RBAC staging). Segments rotate at a
// size bound and the oldest go; an engine that restarts into the folder
// continues the recording.
//
// Replay runs a recording's scenario on the simulator and compares the
// decisions: with the recorded rules it reports any divergence from what
// the engine decided on the cluster (a fidelity bug of the simulator or
// the controller, said as such); with other rules or params it reports the
// decision diff, per object, against the recorded rules replayed.
//
// It owns the recording format and the comparison of decisions. Deciding
// stays in package engine, running on a cluster in package controller,
// simulating in packages scenario and adapters/sim; the command line
// (cmd/statecraft: record, run --record, replay, diff) only wires it.
package record
