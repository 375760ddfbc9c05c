# A simulated Talos operation executor for the autopatch scenarios: it moves
# a TalosOperation through the phases Ichor's executor shows (Pending,
# Running, Paused, Completed, ShutDown). It is a test double, not a shipped
# policy: what Ichor's real executor does to machines is not modelled.
#
#   - A new operation starts running at once and completes after
#     param.duration (or the annotation sim.ichor.maesh.dev/duration).
#   - The annotation sim.ichor.maesh.dev/fail: "<reason>" makes a running
#     step fail: the operation is Paused with that failureReason.
#   - The annotation ichor.maesh.dev/resume: "true" (what `ichor operation
#     resume` writes, here `kubectl annotate`) runs a paused operation
#     again; it then completes, once.
#   - A shutdown rests in ShutDown instead of Completed.
#   - The annotation sim.ichor.maesh.dev/hold: "true" keeps an operation
#     Pending (the executor's queue).
machine "talos-operation-executor" {
  state_field = "phase"

  resource "ichor.maesh.dev/v1alpha1" "TalosOperation" {
    scope = Namespaced
  }

  param "duration" {
    type    = duration
    default = "10m"
  }

  let "annotations" {
    value = "self.metadata.?annotations.orValue({})"
  }
  let "run_time" {
    value = "'sim.ichor.maesh.dev/duration' in annotations ? duration(annotations['sim.ichor.maesh.dev/duration']) : param.duration"
  }
  let "started" {
    value = "timestamp(status.?startTime.orValue(self.metadata.creationTimestamp))"
  }

  state "Pending" {
    initial = true
  }
  state "Running" {
    recheck = "started + run_time"
  }
  state "Paused" {
    outcome = Failure
  }
  state "Completed" {
    outcome = Success
    final   = true
  }
  state "ShutDown" {
    final = true
  }

  transition "start" {
    from   = [Pending]
    when   = "annotations[?'sim.ichor.maesh.dev/hold'].orValue('') != 'true'"
    to     = Running
    reason = Running
    set    = { startTime = "now" }
  }
  transition "step failed" {
    from    = [Running]
    when    = "'sim.ichor.maesh.dev/fail' in annotations && !has(status.failureReason)"
    to      = Paused
    reason  = StepFailed
    message = "annotations['sim.ichor.maesh.dev/fail']"
    set     = { failureReason = "annotations['sim.ichor.maesh.dev/fail']" }
  }
  transition "shut down" {
    from   = [Running]
    when   = "self.spec.type == 'shutdown' && now >= started + run_time"
    to     = ShutDown
    reason = ShutDown
    set    = { completionTime = "now" }
  }
  transition "complete" {
    from   = [Running]
    when   = "now >= started + run_time"
    to     = Completed
    reason = Completed
    set    = { completionTime = "now" }
  }
  transition "resume" {
    from   = [Paused]
    when   = "annotations[?'ichor.maesh.dev/resume'].orValue('') == 'true' && !has(status.resumedAt)"
    to     = Running
    reason = Resumed
    set    = { startTime = "now", resumedAt = "now" }
  }
}
