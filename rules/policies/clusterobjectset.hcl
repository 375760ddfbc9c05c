# ClusterObjectSet (seed 002_183783a8d8248a90, and where the seed is silent
# /work/shared/reference/olm-cod-cos.md): one immutable revision of a
# ClusterObjectDeployment. It applies its objects phase by phase with
# server-side apply, stops at the first incomplete phase, evaluates probes,
# records status.completedAt once, hands objects over between revisions of
# one group, archives its predecessors once it is complete, and tears down
# in reverse phase order once archived.
#
# Every decision is here. library/rollout.go computes: rollout.resolve
# (render inline manifests and secretRef objects, static validation),
# rollout.kinds, rollout.plan (ownership relation, collision protection,
# probes, what to apply), rollout.teardown, rollout.setConditions.
#
# Ready condition reasons (the seed names the COS Ready condition and
# PreconditionsNotMet; the other reasons follow operator-controller PR #2503
# and the COD's Revision* reasons, which the COD derives from them):
#   Ready (True), RollingOut, PreconditionsNotMet, ObjectCollision,
#   InvalidSpecification, Superseded, TearingDown, TeardownError, Archived
#   (all False).
#
# Engine gap worked around: an observation reads one object or one kind by
# label selector, never a computed list of references. The objects of a
# revision can be of any kind, so the machine records the distinct kinds of
# its objects in status.kinds and lists each kind (at most 8) with one
# observation per slot, kind0 ... kind7.
machine "clusterobjectset" {
  description = "Apply one revision's objects in ordered phases, probe them, hand them over to newer revisions and tear them down when archived."
  max_steps   = 64

  resource "olm.operatorframework.io/v1" "ClusterObjectSet" {
    scope  = Cluster
    schema = "crd:olm.operatorframework.io_clusterobjectsets.yaml"
  }

  # How often a revision waiting for probes, or a complete one, reads its
  # objects again. Changes to objects it controls wake it at once.
  param "probe_interval" {
    type    = duration
    default = "1m"
    valid   = "value > duration('0s')"
  }
  # Retry of an unmet precondition (a missing namespace, Secret or kind, a
  # refused or failed request); the reference requeues after 10s.
  param "retry_interval" {
    type    = duration
    default = "10s"
    valid   = "value > duration('0s')"
  }
  # A collision needs user action; the revision looks again this often.
  param "collision_recheck" {
    type    = duration
    default = "1m"
    valid   = "value > duration('0s')"
  }

  observe "secrets" {
    when = "self.spec.phases.exists(p, p.objects.exists(o, has(o.secretRef)))"
    list = "{'apiVersion': 'v1', 'kind': 'Secret', 'namespace': ''}"
  }
  observe "siblings" {
    when = "self.spec.lifecycleState == 'Active'"
    list = "{'apiVersion': 'olm.operatorframework.io/v1', 'kind': 'ClusterObjectSet', 'namespace': ''}"
  }
  observe "kind0" {
    when = "size(status.?kinds.orValue([])) > 0"
    list = "{'apiVersion': status.kinds[0].apiVersion, 'kind': status.kinds[0].kind, 'namespace': ''}"
  }
  observe "kind1" {
    when = "size(status.?kinds.orValue([])) > 1"
    list = "{'apiVersion': status.kinds[1].apiVersion, 'kind': status.kinds[1].kind, 'namespace': ''}"
  }
  observe "kind2" {
    when = "size(status.?kinds.orValue([])) > 2"
    list = "{'apiVersion': status.kinds[2].apiVersion, 'kind': status.kinds[2].kind, 'namespace': ''}"
  }
  observe "kind3" {
    when = "size(status.?kinds.orValue([])) > 3"
    list = "{'apiVersion': status.kinds[3].apiVersion, 'kind': status.kinds[3].kind, 'namespace': ''}"
  }
  observe "kind4" {
    when = "size(status.?kinds.orValue([])) > 4"
    list = "{'apiVersion': status.kinds[4].apiVersion, 'kind': status.kinds[4].kind, 'namespace': ''}"
  }
  observe "kind5" {
    when = "size(status.?kinds.orValue([])) > 5"
    list = "{'apiVersion': status.kinds[5].apiVersion, 'kind': status.kinds[5].kind, 'namespace': ''}"
  }
  observe "kind6" {
    when = "size(status.?kinds.orValue([])) > 6"
    list = "{'apiVersion': status.kinds[6].apiVersion, 'kind': status.kinds[6].kind, 'namespace': ''}"
  }
  observe "kind7" {
    when = "size(status.?kinds.orValue([])) > 7"
    list = "{'apiVersion': status.kinds[7].apiVersion, 'kind': status.kinds[7].kind, 'namespace': ''}"
  }

  let "resolved" {
    value = "rollout.resolve(self, secrets.items)"
  }
  let "kinds" {
    value = "rollout.kinds(resolved.objects)"
  }
  let "live" {
    value = "[kind0.items, kind1.items, kind2.items, kind3.items, kind4.items, kind5.items, kind6.items, kind7.items]"
  }
  let "plan" {
    value = "rollout.plan(self, resolved.objects, live)"
  }
  let "teardown" {
    value = "rollout.teardown(self, resolved.objects, live)"
  }
  let "archived" {
    value = "self.spec.lifecycleState == 'Archived'"
  }
  let "reason" {
    value = "status.?reason.orValue('')"
  }
  let "message" {
    value = "status.?message.orValue('')"
  }
  # Lower revisions of the same group under the same controller owner that
  # are still Active: archived once this revision is complete (the seed: "the
  # COS controller ... archives superseded revisions once handoff
  # completes"; operator-controller: the complete new COS archives them).
  let "predecessors" {
    value = <<-CEL
      siblings.items.filter(s,
        s.spec.group == self.spec.group && s.spec.revision < self.spec.revision &&
        s.spec.lifecycleState == 'Active' && !has(s.metadata.deletionTimestamp) &&
        rollout.controller(s).?uid.orValue('') == rollout.controller(self).?uid.orValue('-'))
    CEL
  }
  let "probe_message" {
    value = "'phase ' + plan.activeName + ': ' + plan.probeFailures.join('; ')"
  }
  let "collision_message" {
    value = "'phase ' + plan.activeName + ': ' + plan.collisions.join('; ')"
  }

  state "Pending" {
    initial    = true
    conditions = { Ready = Unknown }
    recheck    = "param.retry_interval"
  }
  state "RollingOut" {
    conditions = { Ready = False }
    recheck    = "param.probe_interval"
  }
  state "PreconditionsNotMet" {
    outcome    = Failure
    conditions = { Ready = False }
    recheck    = "param.retry_interval"
  }
  state "ObjectCollision" {
    outcome    = Failure
    conditions = { Ready = False }
    recheck    = "param.collision_recheck"
  }
  state "InvalidSpecification" {
    outcome    = Failure
    conditions = { Ready = False }
  }
  state "Ready" {
    outcome    = Success
    conditions = { Ready = True }
    recheck    = "param.probe_interval"
  }
  state "TearingDown" {
    conditions = { Ready = False }
    recheck    = "param.retry_interval"
  }
  state "Archived" {
    final      = true
    conditions = { Ready = False }
  }

  # ---- Which kinds to read: recorded first, in every state. ----

  # Kinds are recorded before anything else; a revision's objects are
  # immutable, so once is enough. They are recorded in whatever state the
  # revision is: one whose Secret appears late resolves only then, in
  # PreconditionsNotMet, and without its kinds it would never read its
  # objects and apply them again and again (seed 002: RevisionPreconditionsNotMet
  # "is a retrying state"; "a revision that later completes records
  # status.completedAt"). The route keeps the state, reason and message.
  transition "record kinds" {
    from = ["*"]
    when = "resolved.errorKind == '' && status.?kinds.orValue([]) != kinds && size(kinds) <= 8"
    set  = { kinds = "kinds" }
  }

  # ---- Archived: teardown in reverse phase order (reference, boxcutter
  # Teardown): delete what this revision still controls, release (remove
  # its owner reference from) what a newer revision took over, then Archived.

  transition "tear down" {
    from = ["*"]
    when = "archived && size(teardown.delete) + size(teardown.release) > 0 && reason != 'TeardownError'"
    do "delete" {
      verb     = delete
      for_each = "teardown.delete"
      target   = "item"
    }
    do "release" {
      verb     = patch
      for_each = "teardown.release"
      target   = "item.ref"
      body     = "{'metadata': {'ownerReferences': item.ownerReferences}}"
    }
    to      = TearingDown
    reason  = TearingDown
    message = "'tearing down phase ' + teardown.phase + ': deleted ' + string(size(teardown.delete)) + ', released ' + string(size(teardown.release))"
    set     = { activePhase = "teardown.phase" }
    after   = "duration('0s')"

    # Already gone: the next step sees it.
    on "*" "not_found" {
      to     = TearingDown
      reason = TearingDown
      after  = "duration('0s')"
    }
    on "*" "*" {
      to     = TearingDown
      reason = TeardownError
      after  = "param.retry_interval"
    }
  }

  # Objects being deleted (finalizers) are waited for: the state's recheck
  # reads them again.
  transition "wait for deletion" {
    from    = ["*"]
    when    = "archived && size(teardown.delete) + size(teardown.release) == 0 && size(teardown.waiting) > 0 && (reason != 'TearingDown' || message != 'phase ' + teardown.phase + ': waiting for the deletion of ' + teardown.waiting.map(r, r.kind + ' ' + r.name).join(', '))"
    to      = TearingDown
    reason  = TearingDown
    message = "'phase ' + teardown.phase + ': waiting for the deletion of ' + teardown.waiting.map(r, r.kind + ' ' + r.name).join(', ')"
  }

  # A failed teardown step is tried again at the state's recheck.
  transition "retry teardown" {
    from    = [TearingDown]
    when    = "archived && !teardown.done && reason == 'TeardownError'"
    to      = TearingDown
    reason  = TearingDown
    message = "'retrying teardown of phase ' + teardown.phase"
  }

  transition "torn down" {
    from    = ["*"]
    when    = "archived && teardown.done && reason != 'Archived'"
    to      = Archived
    reason  = Archived
    message = "'teardown complete'"
    set     = { activePhase = "null" }
  }

  # ---- Static checks: nothing is applied. ----

  transition "invalid objects" {
    from    = ["*"]
    when    = "!archived && resolved.errorKind == 'invalid' && (reason != 'InvalidSpecification' || message != resolved.error)"
    to      = InvalidSpecification
    reason  = InvalidSpecification
    message = "resolved.error"
  }

  transition "too many kinds" {
    from    = ["*"]
    when    = "!archived && resolved.errorKind == '' && size(kinds) > 8 && reason != 'InvalidSpecification'"
    to      = InvalidSpecification
    reason  = InvalidSpecification
    message = "'a revision may hold objects of at most 8 kinds (it holds ' + string(size(kinds)) + ')'"
  }

  transition "secret missing" {
    from    = ["*"]
    when    = "!archived && resolved.errorKind == 'missing' && (reason != 'PreconditionsNotMet' || message != resolved.error)"
    to      = PreconditionsNotMet
    reason  = PreconditionsNotMet
    message = "resolved.error"
  }

  # ---- Rollout of the first incomplete phase. ----

  # Collision protection (Prevent, IfNoController, None; object > phase >
  # spec, default Prevent) is decided per object by rollout.plan; a phase
  # with a collision is not applied at all.
  transition "collision" {
    from    = ["*"]
    when    = "!archived && size(plan.collisions) > 0 && (reason != 'ObjectCollision' || message != collision_message)"
    to      = ObjectCollision
    reason  = ObjectCollision
    message = "collision_message"
    set     = { activePhase = "plan.activeName" }
  }

  # Server-side apply of every object of the phase that is missing, not yet
  # controlled by this revision (handoff from a lower revision: the owner
  # references are kept with controller false and this revision becomes the
  # controller, without re-creating the object), or out of sync.
  transition "apply phase" {
    from = ["*"]
    when = "!archived && resolved.errorKind == '' && size(plan.collisions) == 0 && size(plan.apply) > 0 && reason != 'InvalidSpecification'"
    do "apply" {
      verb     = apply
      for_each = "plan.apply"
      target   = "ref(item)"
      body     = "item"
      expect   = "patch.contains(result, item)"
    }
    to      = RollingOut
    reason  = RollingOut
    message = "'phase ' + plan.activeName + ': applied ' + string(size(plan.apply)) + ' object(s)'"
    set     = { activePhase = "plan.activeName" }
    # The next phase is planned in a new reconcile, from fresh reads.
    after = "duration('0s')"

    # The server refused a rendered object: a hard stall; the revision is
    # immutable, so only a new revision resolves it.
    on "apply" "invalid" {
      to     = InvalidSpecification
      reason = InvalidSpecification
    }
    on "apply" "not_retained" {
      to      = PreconditionsNotMet
      reason  = PreconditionsNotMet
      message = "'phase ' + plan.activeName + ': the server accepted an object but does not hold it as applied: ' + last.message"
      after   = "param.retry_interval"
    }
    # A missing namespace or kind, a refused or failed request.
    on "*" "*" {
      to      = PreconditionsNotMet
      reason  = PreconditionsNotMet
      message = "'phase ' + plan.activeName + ': ' + last.message"
      after   = "param.retry_interval"
    }
  }

  transition "wait for probes" {
    from    = ["*"]
    when    = "!archived && resolved.errorKind == '' && size(plan.collisions) == 0 && size(plan.apply) == 0 && size(plan.probeFailures) > 0 && (reason != 'RollingOut' || message != probe_message)"
    to      = RollingOut
    reason  = RollingOut
    message = "probe_message"
    set     = { activePhase = "plan.activeName" }
  }

  # Objects a newer revision of the group took over before this revision
  # ever completed: it cannot complete any more (orb's Superseded). It waits
  # to be archived, not Ready.
  transition "superseded" {
    from    = ["*"]
    when    = "!archived && resolved.errorKind == '' && plan.complete && size(plan.progressed) > 0 && !has(status.completedAt) && reason != 'Superseded'"
    to      = RollingOut
    reason  = Superseded
    message = "plan.progressed.join('; ')"
  }

  # Every phase complete: Ready; completedAt is recorded the first time and
  # never changed (completion is historical). A revision that completed
  # stays Ready when a newer revision takes its objects over.
  transition "complete" {
    from    = ["*"]
    when    = "!archived && resolved.errorKind == '' && plan.complete && (size(plan.progressed) == 0 || has(status.completedAt)) && reason != 'Ready'"
    to      = Ready
    reason  = Ready
    message = "'all ' + string(size(plan.phases)) + ' phase(s) complete'"
    set     = { completedAt = "has(status.completedAt) ? status.completedAt : string(now)", activePhase = "null" }
  }

  transition "archive predecessors" {
    from = [Ready]
    when = "size(predecessors) > 0"
    do "archive" {
      verb     = patch
      for_each = "predecessors"
      target   = "ref(item)"
      body     = "{'spec': {'lifecycleState': 'Archived'}}"
    }
    to      = Ready
    reason  = Ready
    message = "'archived ' + predecessors.map(s, s.metadata.name).join(', ')"
    after   = "duration('0s')"

    on "*" "not_found" {
      to     = Ready
      reason = Ready
      after  = "duration('0s')"
    }
    on "*" "*" {
      to     = Ready
      reason = Ready
      after  = "param.retry_interval"
    }
  }
}
