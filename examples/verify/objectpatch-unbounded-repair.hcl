# A DELIBERATELY BROKEN copy of rules/policies/objectpatch.hcl for statecraft verify and
# statecraft diff: "drift found" no longer checks drift_exhausted, so drift repair fights
# another actor without a bound. Do not use it.
#
# ObjectPatch and ClusterObjectPatch (seed 000): apply one JSON merge patch
# and optional selector-aware operations to one existing object in the same
# scope; report drift, or repair it with a backoff when spec.drift is set;
# arbitrate static claims between patches on one target; keep the status the
# seed documents (state, outcome, reason, observedGeneration, retryCount,
# driftRetryCount, nextDriftRetryTime, lastAttemptTime, lastAppliedTime,
# conditions Ready and Drifted).
#
# Every decision is here. library supplies only computations:
# objpatch.validate, objpatch.plan, objpatch.satisfied, objpatch.arbitrate,
# backoff, ref.
machine "objectpatch" {
  description = "Apply a JSON merge patch and selector operations to one target object and keep them applied."

  resource "rightsizing.kubex.ai/v1alpha1" "ObjectPatch" {
    scope = Namespaced
  }
  resource "rightsizing.kubex.ai/v1alpha1" "ClusterObjectPatch" {
    scope = Cluster
  }

  # How often the target is observed: missing-target checks, ordinary
  # observation, duplicate-claim checks and drift stabilization.
  param "requeue_interval" {
    type     = duration
    default  = "5m"
    override = "spec.requeueInterval"
    valid    = "value > duration('0s')"
    reason   = InvalidSpec
  }
  # Retries of transient patch-request errors after the first attempt; 0 is
  # unlimited. Target reads never consume it.
  param "retry_amount" {
    default  = 3
    override = "spec.retryAmount"
    valid    = "value >= 0"
    reason   = InvalidSpec
  }
  # Delay before the first retry of a transient patch error; it doubles for
  # each retry of the cycle, up to retry_delay_cap.
  param "retry_delay" {
    type    = duration
    default = "10s"
    valid   = "value > duration('0s')"
  }
  param "retry_delay_cap" {
    type    = duration
    default = "5m"
    valid   = "value > duration('0s')"
  }
  # Automatic drift repair (only when spec.drift is set).
  param "drift_retry_interval" {
    type     = duration
    default  = "5m"
    override = "spec.drift.retryInterval"
    valid    = "value > duration('0s') && value <= duration('24h')"
    reason   = InvalidSpec
  }
  param "drift_retry_amount" {
    default  = 3
    override = "spec.drift.retryAmount"
    valid    = "value >= 0"
    reason   = InvalidSpec
  }
  param "stabilization_window" {
    type     = duration
    default  = "15m"
    override = "spec.drift.stabilizationWindow"
    valid    = "value > duration('0s')"
    reason   = InvalidSpec
  }
  # The drift repair delay doubles within a streak up to this cap.
  param "drift_backoff_cap" {
    type    = duration
    default = "24h"
    valid   = "value > duration('0s') && value <= duration('24h')"
  }

  # While a drift repair deadline is pending, the target is not read.
  observe "target" {
    when = "!(status.?state.orValue('') == 'NeedsUpdate' && has(status.nextDriftRetryTime) && now < timestamp(status.nextDriftRetryTime))"
    get  = "{'apiVersion': self.spec.targetRef.apiVersion, 'kind': self.spec.targetRef.kind, 'name': self.spec.targetRef.name, 'namespace': self.metadata.?namespace.orValue('')}"
  }
  # Claimants: the ObjectPatches of this namespace, or every
  # ClusterObjectPatch.
  observe "patches" {
    when = "!(status.?state.orValue('') == 'NeedsUpdate' && has(status.nextDriftRetryTime) && now < timestamp(status.nextDriftRetryTime))"
    list = "{'apiVersion': self.apiVersion, 'kind': self.kind, 'namespace': self.metadata.?namespace.orValue('')}"
  }

  let "reapply" {
    value = "self.metadata.?annotations[?'automation.kubex.ai/apply-patch'].orValue('') == 'true'"
  }
  let "self_target" {
    value = "self.spec.targetRef.apiVersion == self.apiVersion && self.spec.targetRef.kind == self.kind && self.spec.targetRef.name == self.metadata.name"
  }
  let "validation" {
    value = "objpatch.validate(self.spec)"
  }
  let "own_scope" {
    value = "self.kind == 'ClusterObjectPatch' ? 'Cluster' : 'Namespaced'"
  }
  let "scope_mismatch" {
    value = "target.scope != '' && target.scope != own_scope"
  }
  let "unsupported" {
    value = "target.outcome == 'unsupported' || scope_mismatch"
  }
  # Claims are arbitrated oldest first by creation timestamp, then name
  # (seed 000); a claimant blocked by an accepted one reserves nothing.
  let "claim" {
    value = "objpatch.arbitrate(patches.items, self, ['metadata.creationTimestamp', 'metadata.name'])"
  }
  let "claim_lost" {
    value = "patches.outcome == 'ok' && !claim.accepted"
  }
  let "plan" {
    value = "objpatch.plan(target.object, self.spec)"
  }
  let "matches" {
    value = "target.exists && plan.ok && !plan.changed"
  }
  let "drifted" {
    value = "target.exists && plan.ok && plan.changed"
  }
  let "retry_count" {
    value = "int(status.?retryCount.orValue(0))"
  }
  let "retries_exhausted" {
    value = "param.retry_amount != 0 && retry_count >= param.retry_amount"
  }
  let "drift_repair" {
    value = "has(self.spec.drift)"
  }
  let "drift_count" {
    value = "int(status.?driftRetryCount.orValue(0))"
  }
  let "drift_exhausted" {
    value = "param.drift_retry_amount != 0 && drift_count >= param.drift_retry_amount"
  }
  let "drift_due" {
    value = "has(status.nextDriftRetryTime) && now >= timestamp(status.nextDriftRetryTime)"
  }
  # When the target last became clean: the Drifted condition turning False.
  let "calm_since" {
    value = "status.?conditions.orValue([]).filter(c, c.type == 'Drifted' && c.status == 'False').map(c, timestamp(c.lastTransitionTime))"
  }
  let "stabilized" {
    value = "drift_count > 0 && size(calm_since) > 0 && now - calm_since[0] >= param.stabilization_window"
  }

  state "Pending" {
    initial    = true
    conditions = { Ready = False }
    recheck    = "param.requeue_interval"
  }
  state "Applied" {
    outcome    = Success
    conditions = { Ready = True, Drifted = False }
    recheck    = "param.requeue_interval"
  }
  state "NeedsUpdate" {
    outcome    = Failure
    conditions = { Ready = False, Drifted = True }
    recheck    = "has(status.nextDriftRetryTime) ? timestamp(status.nextDriftRetryTime) : now + param.requeue_interval"
  }
  state "Error" {
    outcome    = Failure
    final      = true
    conditions = { Ready = False }
  }

  # ---- A new apply cycle: a spec change, or the reapply annotation. ----

  # Creating the patch or editing its spec (a new generation) starts a cycle;
  # metadata edits do not change the generation.
  transition "spec changed" {
    from   = ["*"]
    when   = "self.metadata.generation != status.?observedGeneration.orValue(0)"
    to     = Pending
    reason = Pending
    set    = { retryCount = "0", driftRetryCount = "0", nextDriftRetryTime = "null" }
  }

  # The reapply annotation authorizes one new cycle; it is cleared when the
  # cycle is accepted.
  transition "reapply" {
    from = ["*"]
    when = "reapply"
    do "accept" {
      verb   = patch
      target = "ref(self)"
      body   = "{'metadata': {'annotations': {'automation.kubex.ai/apply-patch': null}}}"
    }
    to      = Pending
    reason  = Pending
    message = "'reapply annotation accepted: a new apply cycle starts'"
    set     = { retryCount = "0", driftRetryCount = "0", nextDriftRetryTime = "null" }
    # Clearing the annotation is a write to the patch; the cycle runs in the
    # reconcile that write causes, as a controller's watch would.
    after = "duration('0s')"

    # The annotation stays; the cycle is not started and acceptance is tried
    # again after requeueInterval.
    on "accept" "*" {
      set    = {} # not the transition's
      to     = Error
      reason = ReapplyNotAccepted
      after  = "param.requeue_interval"
    }
  }

  # ---- Claims: a loser rechecks ownership every requeueInterval. ----

  transition "still claimed" {
    from    = ["*"]
    when    = "status.?state.orValue('') == 'Error' && status.?reason.orValue('') == 'TargetAlreadyClaimed' && claim_lost"
    to      = Error
    reason  = TargetAlreadyClaimed
    message = "claim.message"
    after   = "param.requeue_interval"
  }
  transition "claim released" {
    from    = ["*"]
    when    = "status.?state.orValue('') == 'Error' && status.?reason.orValue('') == 'TargetAlreadyClaimed'"
    to      = Pending
    reason  = Pending
    message = "'no accepted claimant conflicts any more'"
  }

  # ---- Checks that end a cycle. ----

  transition "self target" {
    from    = [Pending]
    when    = "self_target"
    to      = Error
    reason  = SelfTargetNotAllowed
    message = "'spec.targetRef names this patch itself; delete and recreate the patch with another target'"
  }

  transition "invalid patch" {
    from    = [Pending]
    when    = "!validation.ok"
    to      = Error
    reason  = InvalidPatch
    message = "validation.error"
  }

  transition "claimed" {
    from    = [Pending, Applied, NeedsUpdate]
    when    = "claim_lost"
    to      = Error
    reason  = TargetAlreadyClaimed
    message = "claim.message"
    set     = { nextDriftRetryTime = "null" }
    after   = "param.requeue_interval"
  }

  transition "unsupported target" {
    from    = [Pending, Applied, NeedsUpdate]
    when    = "unsupported"
    to      = Error
    reason  = UnsupportedTarget
    message = "scope_mismatch ? 'scope mismatch: ' + self.kind + ' targets only ' + (own_scope == 'Cluster' ? 'cluster-scoped' : 'namespaced') + ' objects, but ' + self.spec.targetRef.apiVersion + ' ' + self.spec.targetRef.kind + ' is ' + (target.scope == 'Cluster' ? 'cluster-scoped' : 'namespaced') : target.message"
    set     = { nextDriftRetryTime = "null" }
  }

  transition "access denied" {
    from    = [Pending, Applied, NeedsUpdate]
    when    = "target.outcome == 'forbidden'"
    to      = Error
    reason  = TargetAccessDenied
    message = "target.message"
    set     = { nextDriftRetryTime = "null" }
  }

  # ---- Missing targets. ----

  transition "wait for target" {
    from    = [Pending]
    when    = "target.outcome == 'not_found'"
    to      = Pending
    reason  = TargetNotFound
    message = "target.message"
    after   = "param.requeue_interval"
  }

  transition "target gone" {
    from    = [Applied]
    when    = "target.outcome == 'not_found'"
    to      = NeedsUpdate
    reason  = TargetMissing
    message = "target.message"
    set     = { nextDriftRetryTime = "null" }
  }

  # A missing target that reappears is patched again in a new cycle.
  transition "target returned" {
    from    = [NeedsUpdate]
    when    = "status.?reason.orValue('') == 'TargetMissing' && target.exists"
    to      = Pending
    reason  = Pending
    message = "'the target exists again'"
    set     = { retryCount = "0" }
  }

  # The plan needs the target: a selector that matches nothing, a replace of
  # a missing path, a plan that does not replay cleanly.
  transition "cannot plan" {
    from    = [Pending, Applied, NeedsUpdate]
    when    = "target.exists && !plan.ok"
    to      = Error
    reason  = InvalidPatch
    message = "plan.error"
    set     = { nextDriftRetryTime = "null" }
  }

  # ---- Applying. ----

  # An already-matching target is Applied without a request.
  transition "already applied" {
    from   = [Pending]
    when   = "matches"
    to     = Applied
    reason = Applied
    set    = { retryCount = "0", nextDriftRetryTime = "null" }
  }

  # Merge patch first, then the selector operations, each sent only when
  # the plan has it. The operations are planned on the merged object, so
  # they cannot be dry-run on the live target before the merge: the
  # preflight dry-runs the whole planned result as one merge patch. Only the
  # last write is checked for retention.
  transition "apply" {
    from = [Pending]
    when = "drifted"
    do "preflight" {
      verb    = patch
      target  = "ref(target.object)"
      body    = "plan.full"
      dry_run = true
    }
    do "patch" {
      verb   = patch
      when   = "plan.merge != null"
      target = "ref(target.object)"
      body   = "plan.merge"
      expect = "plan.json != null || objpatch.satisfied(result, self.spec)"
    }
    do "patch_ops" {
      verb   = patch
      when   = "plan.json != null"
      type   = json
      target = "ref(target.object)"
      body   = "plan.json"
      expect = "objpatch.satisfied(result, self.spec)"
    }
    to     = Applied
    reason = Applied
    set    = { retryCount = "0", lastAttemptTime = "now", lastAppliedTime = "now", nextDriftRetryTime = "null" }

    on "preflight" "invalid" {
      to     = Error
      reason = PreflightRejected
      set    = { lastAttemptTime = "now" }
    }
    on "*" "invalid" {
      to     = Error
      reason = LivePatchRejected
      set    = { lastAttemptTime = "now" }
    }
    on "*" "not_retained" {
      to      = Error
      reason  = PatchNotApplied
      message = "'the API server accepted the patch but the target does not hold its result'"
      set     = { lastAttemptTime = "now" }
    }
    on "*" "not_found" {
      to     = Pending
      reason = TargetNotFound
      set    = { lastAttemptTime = "now" }
      after  = "param.requeue_interval"
    }
    on "*" "forbidden" {
      to     = Error
      reason = TargetAccessDenied
      set    = { lastAttemptTime = "now" }
    }
    on "*" "unsupported" {
      to     = Error
      reason = UnsupportedTarget
      set    = { lastAttemptTime = "now" }
    }
    on "*" "*" {
      when   = "retries_exhausted"
      to     = Error
      reason = RetryLimitExceeded
      set    = { lastAttemptTime = "now" }
    }
    on "*" "*" {
      to     = Pending
      reason = Retrying
      set    = { lastAttemptTime = "now", retryCount = "retry_count + 1" }
      after  = "backoff(param.retry_delay, retry_count, param.retry_delay_cap)"
    }
  }

  # ---- Drift. ----

  # With spec.drift: count the repair and wait for its deadline; the delay
  # doubles within a streak (5m, 10m, 20m ... capped).
  transition "drift found" {
    from    = [Applied]
    when    = "drifted && drift_repair"
    to      = NeedsUpdate
    reason  = Drifted
    message = "'the target no longer matches the patch; repair ' + string(drift_count + 1) + ' is due at ' + string(now + backoff(param.drift_retry_interval, drift_count, param.drift_backoff_cap))"
    set = {
      driftRetryCount    = "drift_count + 1"
      nextDriftRetryTime = "now + backoff(param.drift_retry_interval, drift_count, param.drift_backoff_cap)"
    }
    at = "now + backoff(param.drift_retry_interval, drift_count, param.drift_backoff_cap)"
  }

  # Without spec.drift (or with its budget spent): report, do not repair.
  transition "drifted" {
    from    = [Applied]
    when    = "drifted"
    to      = NeedsUpdate
    reason  = Drifted
    message = "drift_repair ? 'the target no longer matches the patch and the drift repair budget is spent' : 'the target no longer matches the patch; set the reapply annotation to repair it'"
  }

  transition "drift retries exhausted" {
    from    = [NeedsUpdate]
    when    = "drifted && drift_repair && drift_exhausted && !has(status.nextDriftRetryTime)"
    to      = Error
    reason  = DriftRetryLimitExceeded
    message = "'the target drifted again after ' + string(drift_count) + ' automatic repairs; edit the spec or set the reapply annotation'"
  }

  # Another actor restored the target: no request; the deadline is cleared,
  # the count kept.
  transition "drift recovered" {
    from    = [NeedsUpdate]
    when    = "matches"
    to      = Applied
    reason  = Applied
    message = "'the target matches the patch again'"
    set     = { nextDriftRetryTime = "null" }
  }

  # At the deadline, a target that still differs is repaired: a new apply
  # attempt from Pending.
  transition "repair drift" {
    from    = [NeedsUpdate]
    when    = "drifted && drift_repair && drift_due"
    to      = Pending
    reason  = Pending
    message = "'repairing drift ' + string(drift_count)"
    set     = { retryCount = "0", nextDriftRetryTime = "null" }
  }

  # Clean observations every requeueInterval through stabilizationWindow end
  # the drift streak.
  transition "stabilized" {
    from    = [Applied]
    when    = "matches && stabilized"
    to      = Applied
    reason  = Applied
    message = "'no drift for ' + string(param.stabilization_window) + ': the drift streak is over'"
    set     = { driftRetryCount = "0" }
  }
}
