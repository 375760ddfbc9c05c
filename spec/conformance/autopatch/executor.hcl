# A simulated Talos operation executor for the autopatch scenarios: it moves
# a TalosOperation through the phases Ichor's executor shows (Pending,
# Running, Paused, Completed, ShutDown). It is a test double, not a shipped
# policy: what Ichor's real executor does to machines is not modelled. The
# same file runs in the simulator and, as a test helper, against a
# kube-apiserver (scenario/kubeworld).
#
# What it models of Ichor's two upgrade executors (talos_upgrade.go and
# kubernetes_upgrade.go, seed 004 sections 4, 6 and 7), for an operation of
# type talos or kubernetes:
#
#   - The target is read from the TalosCluster's spec (spec.talosVersion or
#     spec.kubernetesVersion) when the operation starts, not from the
#     operation; it is recorded as status.targetVersion.
#   - The step is checked again: an automatic operation (annotation
#     ichor.maesh.dev/auto-patch: "true") must move from its
#     ichor.maesh.dev/from-version to a newer final patch of the same
#     minor; a person's operation that names its from-version must not go
#     to an older minor or skip one. A refused step pauses the operation
#     with failureReason "step refused: ...", as a failed step does.
#   - The hold annotation ichor.maesh.dev/hold: "true" on a machine (ADR
#     0043; TalosCluster.status.machines[].annotations, as Ichor's cluster
#     reconciler reports each machine) is honoured: a held machine is not
#     upgraded (status.skippedMachines names it), and while every approved
#     machine is held the operation waits in Pending, reason MachinesHeld.
#
# And, for every operation:
#
#   - A new operation starts running at once and completes after
#     param.duration (or the annotation sim.ichor.maesh.dev/duration).
#   - The annotation sim.ichor.maesh.dev/fail: "<reason>" makes a running
#     step fail: the operation is Paused with that failureReason.
#   - The annotation ichor.maesh.dev/resume: "true" (what `ichor operation
#     resume` writes, here `kubectl annotate`) runs a paused operation
#     again, if its step (checked again) is allowed; it then completes,
#     once.
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
  # How often an operation waiting on held machines looks again.
  param "hold_recheck" {
    type    = duration
    default = "1m"
  }

  observe "cluster" {
    when = "self.spec.type in ['talos', 'kubernetes']"
    get  = "{'apiVersion': 'ichor.maesh.dev/v1alpha1', 'kind': 'TalosCluster', 'namespace': self.metadata.namespace, 'name': self.spec.cluster}"
  }

  let "annotations" {
    value = "self.metadata.?annotations.orValue({})"
  }
  let "run_time" {
    value = "'sim.ichor.maesh.dev/duration' in annotations ? duration(annotations['sim.ichor.maesh.dev/duration']) : param.duration"
  }
  # The executors of Talos and Kubernetes upgrades.
  let "is_upgrade" {
    value = "self.spec.type in ['talos', 'kubernetes']"
  }
  let "automatic" {
    value = "annotations[?'ichor.maesh.dev/auto-patch'].orValue('') == 'true'"
  }
  let "from" {
    value = "annotations[?'ichor.maesh.dev/from-version'].orValue('')"
  }
  # The target: the cluster's spec, not the operation.
  let "target" {
    value = "!is_upgrade || !cluster.exists ? '' : self.spec.type == 'talos' ? cluster.object.spec.talosVersion : cluster.object.spec.kubernetesVersion"
  }
  let "from_v" {
    value = "upgrade.version(from)"
  }
  let "target_v" {
    value = "upgrade.version(target)"
  }
  # The step, checked again.
  let "step_error" {
    value = <<-CEL
      !is_upgrade ? '' :
      !cluster.exists ? 'step refused: TalosCluster ' + self.metadata.namespace + '/' + self.spec.cluster + ' not found' :
      automatic && !upgrade.isPatchStep(from, target) ? 'step refused: automatic ' + self.spec.type + ' ' + (from == '' ? '(no from-version)' : from) + ' → ' + target + ' is not a newer patch of the same minor' :
      !automatic && from != '' && (!from_v.ok || !target_v.ok || target_v.major != from_v.major || target_v.minor < from_v.minor || target_v.minor > from_v.minor + 1) ? 'step refused: ' + self.spec.type + ' ' + from + ' → ' + target + ' goes to an older minor or skips one' : ''
    CEL
  }
  # The hold annotation of ADR 0043, on the cluster's approved machines.
  let "approved" {
    value = "is_upgrade && cluster.exists ? cluster.object.?status.?machines.orValue([]).filter(m, m.?approved.orValue(false)) : []"
  }
  let "held" {
    value = "approved.filter(m, m.?annotations[?'ichor.maesh.dev/hold'].orValue('') == 'true').map(m, m.name)"
  }
  let "all_held" {
    value = "size(approved) > 0 && size(held) == size(approved)"
  }
  let "queued" {
    value = "annotations[?'sim.ichor.maesh.dev/hold'].orValue('') == 'true'"
  }
  let "started" {
    value = "timestamp(status.?startTime.orValue(self.metadata.creationTimestamp))"
  }

  state "Pending" {
    initial = true
    recheck = "param.hold_recheck"
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

  transition "refuse step" {
    from    = [Pending]
    when    = "!queued && step_error != ''"
    to      = Paused
    reason  = StepFailed
    message = "step_error"
    set     = { failureReason = "step_error", targetVersion = "is_upgrade ? target : null" }
  }
  transition "machines held" {
    from    = [Pending]
    when    = "!queued && all_held && status.?reason.orValue('') != 'MachinesHeld'"
    to      = Pending
    reason  = MachinesHeld
    message = "'every approved machine of ' + self.spec.cluster + ' carries ichor.maesh.dev/hold: ' + held.join(', ')"
  }
  transition "start" {
    from   = [Pending]
    when   = "!queued && step_error == '' && !all_held"
    to     = Running
    reason = Running
    set = {
      startTime       = "now"
      targetVersion   = "is_upgrade ? target : null"
      skippedMachines = "size(held) > 0 ? dyn(held) : null"
    }
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
    when   = "annotations[?'ichor.maesh.dev/resume'].orValue('') == 'true' && !has(status.resumedAt) && step_error == ''"
    to     = Running
    reason = Resumed
    set    = { startTime = "now", resumedAt = "now" }
  }
}
