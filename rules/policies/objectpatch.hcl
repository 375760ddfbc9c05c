# ObjectPatch and ClusterObjectPatch: apply one JSON merge patch to an
# existing object in the same scope, report drift, and keep the status the
# seed documents (outcome, reason, observedGeneration, lastAttemptTime,
# lastAppliedTime, Ready).
machine "objectpatch" {
  description = "Apply a JSON merge patch to one target object and keep it applied."

  resource "rightsizing.kubex.ai/v1alpha1" "ObjectPatch" {
    scope = Namespaced
  }
  resource "rightsizing.kubex.ai/v1alpha1" "ClusterObjectPatch" {
    scope = Cluster
  }

  # How often the target is observed: missing-target checks and drift checks.
  param "requeue_interval" {
    type     = duration
    default  = "5m"
    override = "spec.requeueInterval"
    valid    = "value > duration('0s')"
    reason   = InvalidSpec
  }

  observe "target" {
    get = "{'apiVersion': self.spec.targetRef.apiVersion, 'kind': self.spec.targetRef.kind, 'name': self.spec.targetRef.name, 'namespace': self.metadata.?namespace.orValue('')}"
  }

  let "matches" {
    value = "target.exists && patch.satisfied(target.object, self.spec.patch)"
  }

  state "Pending" {
    initial    = true
    conditions = { Ready = False }
  }
  state "Applied" {
    outcome    = Success
    conditions = { Ready = True }
    recheck    = "param.requeue_interval"
  }
  state "NeedsUpdate" {
    outcome    = Failure
    conditions = { Ready = False }
    recheck    = "param.requeue_interval"
  }
  state "Error" {
    outcome    = Failure
    final      = true
    conditions = { Ready = False }
  }

  # A new generation of the spec starts a new apply cycle.
  transition "spec changed" {
    from   = ["*"]
    when   = "self.metadata.generation != status.?observedGeneration.orValue(0)"
    to     = Pending
    reason = Pending
  }

  transition "wait for target" {
    from   = [Pending]
    when   = "target.outcome == 'not_found'"
    to     = Pending
    reason = TargetNotFound
    after  = "param.requeue_interval"
  }

  # An already-matching target is Applied without a request.
  transition "already applied" {
    from   = [Pending, NeedsUpdate]
    when   = "matches"
    to     = Applied
    reason = Applied
    set    = { retryCount = "0" }
  }

  transition "apply" {
    from = [Pending, NeedsUpdate]
    when = "target.exists && status.?reason.orValue('') != 'Drifted'"
    do "patch" {
      verb   = patch
      target = "ref(target.object)"
      body   = "self.spec.patch"
    }
    to     = Applied
    reason = Applied
    set    = { retryCount = "0", lastAttemptTime = "now", lastAppliedTime = "now" }

    on "patch" "not_found" {
      to     = Pending
      reason = TargetNotFound
      after  = "param.requeue_interval"
    }
    on "patch" "forbidden" {
      to     = Error
      reason = TargetAccessDenied
      set    = { lastAttemptTime = "now" }
    }
    on "patch" "invalid" {
      to     = Error
      reason = LivePatchRejected
      set    = { lastAttemptTime = "now" }
    }
    on "patch" "unsupported" {
      to     = Error
      reason = UnsupportedTarget
    }
    on "*" "*" {
      to     = Pending
      reason = Retrying
      set    = { lastAttemptTime = "now", retryCount = "status.?retryCount.orValue(0) + 1" }
      after  = "param.requeue_interval"
    }
  }

  transition "target gone" {
    from   = [Applied]
    when   = "target.outcome == 'not_found'"
    to     = NeedsUpdate
    reason = TargetMissing
  }

  # Without spec.drift the drift is reported, not repaired.
  transition "drifted" {
    from   = [Applied]
    when   = "target.exists && !matches"
    to     = NeedsUpdate
    reason = Drifted
  }
}
