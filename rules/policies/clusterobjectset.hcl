# ClusterObjectSet (seed 002_183783a8d8248a90, and where the seed is silent
# /work/shared/reference/olm-cod-cos.md): one immutable revision of a
# ClusterObjectDeployment. It applies its objects phase by phase with
# server-side apply, stops at the first incomplete phase, evaluates probes,
# records status.completedAt once, hands objects over between revisions of
# one group, archives its predecessors once it is complete, and tears down
# in reverse phase order once archived.
#
# Every decision is here: which relation an object has to the revision
# (owned, adopted, progressed, a collision), which collision protection wins
# and its default, when a kind of object is ready, the order of phases in a
# rollout and in a teardown. library/rollout.go computes the facts they are
# decided on: rollout.resolve (render inline manifests and secretRef
# objects, static validation), rollout.kinds, rollout.observe (each object
# beside the cluster: exists, its controller and that controller's
# revision, in sync, the manifest with this revision's owner references),
# rollout.probe (the author's progression probes), rollout.setConditions.
#
# Ready condition reasons (the seed names the COS Ready condition and
# PreconditionsNotMet; the other reasons follow operator-controller PR #2503
# and the COD's Revision* reasons, which the COD derives from them):
#   Ready (True), RollingOut, PreconditionsNotMet, ObjectCollision,
#   InvalidSpecification, Superseded, TearingDown, TeardownError, Archived
#   (all False).
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
  # Every kind the revision's objects are of, listed cluster-wide: a
  # revision's objects can be of any kind.
  observe "live" {
    for_each = "kinds"
    list     = "{'apiVersion': item.apiVersion, 'kind': item.kind, 'namespace': ''}"
  }

  let "resolved" {
    value = "rollout.resolve(self, secrets.items)"
  }
  let "kinds" {
    value = "rollout.kinds(resolved.objects)"
  }
  let "observed" {
    value = "rollout.observe(self, resolved.objects, live.map(l, l.items))"
  }

  # ---- Collision protection and ownership (boxcutter's handoff and
  # collision rules). ----

  # Prevent, IfNoController or None: the object's, else its phase's, else
  # the spec's, else Prevent.
  function "protection(o)" { value = "[o.collisionProtection.object, o.collisionProtection.phase, self.spec.?collisionProtection.orValue(''), 'Prevent'].filter(p, p != '')[0]" }
  # What an object is to this revision: "create" (it does not exist),
  # "owned" (this revision controls it), "adopt" (a lower revision of the
  # group controls it: a handoff; or it has no controller and protection is
  # IfNoController or None; or another controller and protection is None),
  # "progressed" (a higher revision of the group controls it: this one
  # leaves it alone) or "collision" (anything else).
  function "relation(o)" {
    value = <<-CEL
      !o.exists ? 'create' :
      o.controlledBySelf ? 'owned' :
      o.controllerRevision > 0 ? (
        o.controllerRevision < self.spec.revision ? 'adopt' :
        o.controllerRevision > self.spec.revision ? 'progressed' : 'collision') :
      has(o.controller.uid) ? (protection(o) == 'None' ? 'adopt' : 'collision') :
      protection(o) == 'Prevent' ? 'collision' : 'adopt'
    CEL
  }
  function "describe(r)" { value = "r.kind + ' ' + (r.namespace != '' ? r.namespace + '/' + r.name : r.name)" }
  function "collision_message(o)" {
    value = <<-CEL
      describe(o.ref) + (
        o.controllerRevision > 0 ? ' is controlled by ' + o.controller.kind + ' ' + o.controller.name + ' with the same revision' :
        has(o.controller.uid) ? ' is controlled by ' + o.controller.kind + ' ' + o.controller.name + ' (collisionProtection ' + protection(o) + ')' :
        ' exists and is not managed by this revision (collisionProtection Prevent)')
    CEL
  }

  # ---- Readiness (the operator-controller applier's default progression
  # probes, then the revision's own). ----

  function "condition_unmet(obj, ctype, want)" { value = "obj.?status.?conditions.orValue([]).filter(c, c.?type.orValue('') == ctype).map(c, c.?status.orValue(''))[?0].orValue('') == want ? '' : 'condition ' + ctype + ' is not ' + want" }
  function "field_unmet(field, path, want)" { value = "field.hasValue() && string(field.value()) == want ? '' : path + ' is ' + (field.hasValue() ? string(field.value()) : 'unset') + ', not ' + want" }
  # Why a live object of a kind with a readiness rule is not ready ('' when
  # it is, or its kind has none).
  function "kind_unready(obj)" {
    value = <<-CEL
      cel.bind(group, obj.apiVersion.contains('/') ? obj.apiVersion.split('/')[0] : '',
        group == 'apiextensions.k8s.io' && obj.kind == 'CustomResourceDefinition' ? condition_unmet(obj, 'Established', 'True') :
        group == 'cert-manager.io' && obj.kind in ['Certificate', 'Issuer'] ? condition_unmet(obj, 'Ready', 'True') :
        group == '' && obj.kind == 'Namespace' ? field_unmet(obj.?status.?phase, 'status.phase', 'Active') :
        group == '' && obj.kind == 'PersistentVolumeClaim' ? field_unmet(obj.?status.?phase, 'status.phase', 'Bound') :
        group == 'apps' && obj.kind in ['Deployment', 'StatefulSet'] ? (
          obj.?status.?updatedReplicas.orValue(0) != obj.?spec.?replicas.orValue(1)
            ? 'status.updatedReplicas is ' + (obj.?status.?updatedReplicas.hasValue() ? string(obj.status.updatedReplicas) : 'unset') + ', not ' + string(obj.?spec.?replicas.orValue(1))
            : condition_unmet(obj, 'Available', 'True')) :
        '')
    CEL
  }
  # Why a live object this revision controls is not ready ('' when it is):
  # an observed generation behind its generation, its kind's rule, then the
  # revision's progression probes.
  function "unready(obj)" {
    value = <<-CEL
      obj.?status.?observedGeneration.hasValue() && obj.?metadata.?generation.hasValue() && obj.status.observedGeneration != obj.metadata.generation
        ? 'status.observedGeneration ' + string(obj.status.observedGeneration) + ' is behind metadata.generation ' + string(obj.metadata.generation) :
      kind_unready(obj) != '' ? kind_unready(obj) :
      rollout.probe(obj, self.spec.?progressionProbes.orValue([])).message
    CEL
  }

  # ---- The rollout: phases in order; the first incomplete one is active. ----

  # Each object with its relation and, for one this revision controls and
  # holds in sync, why it is not ready yet.
  let "assessed" {
    value = <<-CEL
      observed.map(o, cel.bind(relation, relation(o), {
        'object': o, 'relation': relation,
        'unready': relation == 'owned' && o.inSync ? unready(o.live) : ''}))
    CEL
  }
  # A phase is complete when every object in it is owned, in sync and ready,
  # or controlled by a newer revision.
  let "incomplete" {
    value = "assessed.filter(a, a.relation == 'collision' || a.relation != 'progressed' && (a.relation != 'owned' || !a.object.inSync || a.unready != ''))"
  }
  let "plan" {
    value = <<-CEL
      cel.bind(active, size(incomplete) > 0 ? incomplete[0].object.phaseIndex : -1,
      cel.bind(here, assessed.filter(a, a.object.phaseIndex == active), {
        'phases': size(observed.map(o, o.phaseIndex).distinct()),
        'complete': size(incomplete) == 0,
        'activeName': size(incomplete) > 0 ? incomplete[0].object.phase : '',
        'apply': here.filter(a, a.relation in ['create', 'adopt'] || a.relation == 'owned' && !a.object.inSync).map(a, a.object.manifest),
        'collisions': here.filter(a, a.relation == 'collision').map(a, collision_message(a.object)),
        'probeFailures': here.filter(a, a.relation == 'owned' && a.object.inSync && a.unready != '').map(a, describe(a.object.ref) + ': ' + a.unready),
        'progressed': assessed.filter(a, a.relation == 'progressed').map(a, describe(a.object.ref) + ' is controlled by the newer revision ' + a.object.controller.name)}))
    CEL
  }

  # ---- The teardown, in reverse phase order (reference, boxcutter
  # Teardown): in the last phase that still holds an object carrying this
  # revision's owner reference (or one being deleted), delete what it
  # controls, release (remove its reference from) what another revision
  # controls, and wait for what is being deleted. ----
  let "teardown" {
    value = <<-CEL
      cel.bind(work, observed.filter(o, o.exists && (o.deleting || o.referencedBySelf)),
      cel.bind(last, size(work) > 0 ? math.greatest(work.map(o, o.phaseIndex)) : -1,
      cel.bind(here, work.filter(o, o.phaseIndex == last), {
        'done': size(work) == 0,
        'phase': size(here) > 0 ? here[0].phase : '',
        'waiting': here.filter(o, o.deleting).map(o, o.ref),
        'delete': here.filter(o, !o.deleting && o.controlledBySelf).map(o, o.ref),
        'release': here.filter(o, !o.deleting && !o.controlledBySelf).map(o, {'ref': o.ref, 'ownerReferences': o.ownerReferences})})))
    CEL
  }
  let "archived" {
    value = "self.spec.lifecycleState == 'Archived'"
  }
  let "reason" {
    value = "status.?reason.orValue('')"
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

  # ---- Deleted (a foreground delete of its deployment, or its own), the
  # revision stays, with its deletionTimestamp, until the garbage collector
  # has deleted its objects: it applies and tears down nothing more (an
  # object applied again would keep the collector waiting). ----
  transition "being deleted" {
    from = ["*"]
    when = "has(self.metadata.deletionTimestamp)"
  }

  # ---- Archived: teardown in reverse phase order (reference, boxcutter
  # Teardown): delete what this revision still controls, release (remove
  # its owner reference from) what a newer revision took over, then Archived.

  transition "tear down" {
    from = ["*"]
    when = "archived && size(teardown.delete) + size(teardown.release) > 0"
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
      set    = {} # not the transition's
      to     = TearingDown
      reason = TearingDown
      after  = "duration('0s')"
    }
    # A failed step is tried again at the wake-up: the guard reads the
    # teardown afresh, so no guard on the reason is needed.
    on "*" "*" {
      set    = {} # not the transition's
      to     = TearingDown
      reason = TeardownError
      after  = "param.retry_interval"
    }
  }

  # Objects being deleted (finalizers) are waited for: the state's recheck
  # reads them again.
  transition "wait for deletion" {
    from    = ["*"]
    when    = "archived && size(teardown.delete) + size(teardown.release) == 0 && size(teardown.waiting) > 0"
    to      = TearingDown
    reason  = TearingDown
    message = "'phase ' + teardown.phase + ': waiting for the deletion of ' + teardown.waiting.map(r, r.kind + ' ' + r.name).join(', ')"
  }

  transition "torn down" {
    from    = ["*"]
    when    = "archived && teardown.done"
    to      = Archived
    reason  = Archived
    message = "'teardown complete'"
    set     = { activePhase = "null" }
  }

  # ---- Static checks: nothing is applied. ----

  transition "invalid objects" {
    from    = ["*"]
    when    = "!archived && resolved.errorKind == 'invalid'"
    to      = InvalidSpecification
    reason  = InvalidSpecification
    message = "resolved.error"
  }

  transition "secret missing" {
    from    = ["*"]
    when    = "!archived && resolved.errorKind == 'missing'"
    to      = PreconditionsNotMet
    reason  = PreconditionsNotMet
    message = "resolved.error"
  }

  # ---- Rollout of the first incomplete phase. ----

  # A phase with a collision (see relation) is not applied at all.
  transition "collision" {
    from    = ["*"]
    when    = "!archived && size(plan.collisions) > 0"
    to      = ObjectCollision
    reason  = ObjectCollision
    message = "collision_message"
    set     = { activePhase = "plan.activeName" }
  }

  # Server-side apply of every object of the phase that is missing, not yet
  # controlled by this revision (handoff from a lower revision: the owner
  # references are kept with controller false and this revision becomes the
  # controller, without re-creating the object), or out of sync. Not after
  # the server refused an object (reason InvalidSpecification, below): the
  # revision is immutable, and applying it again would be refused again.
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
      set    = {} # not the transition's
      to     = InvalidSpecification
      reason = InvalidSpecification
    }
    on "apply" "not_retained" {
      set     = {} # not the transition's
      to      = PreconditionsNotMet
      reason  = PreconditionsNotMet
      message = "'phase ' + plan.activeName + ': the server accepted an object but does not hold it as applied: ' + last.message"
      after   = "param.retry_interval"
    }
    # A missing namespace or kind, a refused or failed request.
    on "*" "*" {
      set     = {} # not the transition's
      to      = PreconditionsNotMet
      reason  = PreconditionsNotMet
      message = "'phase ' + plan.activeName + ': ' + last.message"
      after   = "param.retry_interval"
    }
  }

  transition "wait for probes" {
    from    = ["*"]
    when    = "!archived && resolved.errorKind == '' && size(plan.collisions) == 0 && size(plan.apply) == 0 && size(plan.probeFailures) > 0"
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
    when    = "!archived && resolved.errorKind == '' && plan.complete && size(plan.progressed) > 0 && !has(status.completedAt)"
    to      = RollingOut
    reason  = Superseded
    message = "plan.progressed.join('; ')"
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

  # Every phase complete: Ready, entered from any other state;
  # completedAt is recorded the first time and never changed (completion is
  # historical). A revision that completed stays Ready when a newer revision
  # takes its objects over.
  transition "complete" {
    from    = [Pending, RollingOut, PreconditionsNotMet, ObjectCollision, InvalidSpecification, TearingDown]
    when    = "!archived && resolved.errorKind == '' && plan.complete && (size(plan.progressed) == 0 || has(status.completedAt))"
    to      = Ready
    reason  = Ready
    message = "'all ' + string(plan.phases) + ' phase(s) complete'"
    set     = { completedAt = "has(status.completedAt) ? status.completedAt : string(now)", activePhase = "null" }
  }
}
