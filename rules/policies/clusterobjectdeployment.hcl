# ClusterObjectDeployment (seed 002_183783a8d8248a90): a mutable template
# rolled out through immutable ClusterObjectSet revisions. The COD creates
# and owns its revisions (one per distinct template), adopts ownerless
# revisions labelled as object-controller's, enforces the rollout deadline,
# reports Available and Progressing, and prunes archived history.
# The ClusterObjectSet machine ("clusterobjectset.hcl") applies the objects,
# hands them over between revisions, archives predecessors and tears down.
# Load both: rules = ["clusterobjectdeployment", "clusterobjectset"].
#
# Every decision is here. library/rollout.go computes:
# rollout.templateHash, rollout.nextRevision, rollout.byRevision,
# rollout.controller, rollout.metadataError, rollout.setConditions.
#
# The machine's state is the Progressing reason (the seed's nine reasons,
# plus RevisionNumberExhausted for the seed's "reports an error" once
# 9999999999 is reached: the seed names no reason for it). Conditions are
# written with rollout.setConditions because Available and Progressing
# carry different reasons.
machine "clusterobjectdeployment" {
  description = "Stamp out one ClusterObjectSet revision per template, report its rollout, enforce the deadline and prune history."
  max_steps   = 32

  resource "olm.operatorframework.io/v1" "ClusterObjectDeployment" {
    scope  = Cluster
    schema = "crd:olm.operatorframework.io_clusterobjectdeployments.yaml"
  }

  # Archived revisions to retain (seed: default 5, range 0-50).
  param "revision_history_limit" {
    default  = 5
    override = "spec.revisionHistoryLimit"
    valid    = "value >= 0 && value <= 50"
    reason   = InvalidSpecification
  }
  # Retry of a failed revision creation, adoption or pruning request.
  param "retry_interval" {
    type    = duration
    default = "10s"
    valid   = "value > duration('0s')"
  }
  # A resting COD reads its revisions again this often; revision changes
  # wake it at once (it is their controller owner) and the deadline is
  # scheduled exactly (recheck of the Progressing states).
  param "poll_interval" {
    type    = duration
    default = "10m"
    valid   = "value > duration('0s')"
  }

  # Every ClusterObjectSet: the group is spec.group, not a label or an owner
  # reference (seed: "Revision lookup uses that group").
  observe "sets" {
    list = "{'apiVersion': 'olm.operatorframework.io/v1', 'kind': 'ClusterObjectSet', 'namespace': ''}"
  }

  let "uid" {
    value = "dyn(self.metadata).uid"
  }
  # The group, by revision number, archived and foreign-owned included.
  let "group" {
    value = "rollout.byRevision(sets.items.filter(s, s.spec.group == self.metadata.name))"
  }
  let "active_members" {
    value = "group.filter(s, s.spec.lifecycleState == 'Active' && !has(s.metadata.deletionTimestamp))"
  }
  # Owned: this COD (this uid) is the controller owner.
  let "owned" {
    value = "group.filter(s, rollout.controller(s).?uid.orValue('') == uid)"
  }
  let "active_owned" {
    value = "owned.filter(s, s.spec.lifecycleState == 'Active' && !has(s.metadata.deletionTimestamp))"
  }
  let "hash" {
    value = "rollout.templateHash(self.spec.template)"
  }
  # The latest owned, active, non-deleting revision, if its template is the
  # desired one (seed: "compares the desired template with the latest owned,
  # active, non-deleting revision's template identity").
  let "desired" {
    value = "size(active_owned) > 0 && active_owned[size(active_owned) - 1].metadata.?labels[?'olm.operatorframework.io/template-hash'].orValue('') == hash ? [active_owned[size(active_owned) - 1]] : []"
  }
  let "need_new" {
    value = "size(desired) == 0"
  }
  let "next" {
    value = "rollout.nextRevision(group)"
  }
  # A controller reference to an earlier ClusterObjectDeployment of the same
  # name (another uid): left for garbage collection, never rewritten.
  let "stale" {
    value = "active_members.filter(s, rollout.controller(s).?kind.orValue('') == 'ClusterObjectDeployment' && rollout.controller(s).?name.orValue('') == self.metadata.name && rollout.controller(s).?uid.orValue('') != uid)"
  }
  let "top" {
    value = "size(active_members) > 0 ? [active_members[size(active_members) - 1]] : []"
  }
  let "top_controller" {
    value = "rollout.controller(size(top) > 0 ? top[0] : {})"
  }
  let "top_managed" {
    value = "size(top) > 0 && top[0].metadata.?labels[?'apps.kubernetes.io/managed-by'].orValue('') == 'object-controller'"
  }
  let "owner_conflict" {
    value = "size(top) > 0 && has(top_controller.uid) && top_controller.uid != uid && !(top_controller.kind == 'ClusterObjectDeployment' && top_controller.name == self.metadata.name)"
  }
  let "unmanaged" {
    value = "size(top) > 0 && !has(top_controller.uid) && !top_managed"
  }
  # Ownerless, non-deleting group members with the managed-by label.
  let "adoptable" {
    value = "group.filter(s, !has(s.metadata.deletionTimestamp) && !has(rollout.controller(s).uid) && s.metadata.?labels[?'apps.kubernetes.io/managed-by'].orValue('') == 'object-controller')"
  }
  let "meta_error" {
    value = "rollout.metadataError(dyn(self.spec.template).?metadata.orValue({}))"
  }
  let "cos_name" {
    value = "size(desired) > 0 ? desired[0].metadata.name : ''"
  }
  let "cos_ready" {
    value = "size(desired) > 0 ? desired[0].?status.?conditions.orValue([]).filter(c, c.type == 'Ready') : []"
  }
  let "cos_reason" {
    value = "size(cos_ready) > 0 ? cos_ready[0].reason : ''"
  }
  let "cos_message" {
    value = "size(cos_ready) > 0 ? cos_ready[0].?message.orValue('') : ''"
  }
  let "deadline_set" {
    value = "has(self.spec.progressDeadlineMinutes)"
  }
  # One budget for the whole revision, from the COS's creationTimestamp.
  let "deadline_at" {
    value = "size(desired) > 0 && deadline_set ? timestamp(desired[0].metadata.creationTimestamp) + duration(string(self.spec.progressDeadlineMinutes) + 'm') : now"
  }
  let "completed" {
    value = "size(desired) > 0 && has(desired[0].status) && has(desired[0].status.completedAt)"
  }
  # Progressing, in the seed's precedence: ownership first; completion is
  # historical; hard stalls over the deadline; RevisionPreconditionsNotMet
  # retries under the deadline.
  let "verdict" {
    value = <<-CEL
      owner_conflict ? 'OwnerConflict' :
      unmanaged ? 'UnmanagedRevision' :
      meta_error != '' ? 'InvalidSpecification' :
      need_new && size(stale) > 0 ? 'WaitingForGarbageCollection' :
      need_new && next > 9999999999 ? 'RevisionNumberExhausted' :
      need_new ? 'Create' :
      completed ? 'NewClusterObjectSetProgressed' :
      cos_reason == 'ObjectCollision' ? 'RevisionObjectCollision' :
      cos_reason == 'InvalidSpecification' ? 'RevisionInvalidSpecification' :
      deadline_set && now >= deadline_at ? 'ProgressDeadlineExceeded' :
      cos_reason == 'PreconditionsNotMet' ? 'RevisionPreconditionsNotMet' :
      'NewClusterObjectSetProgressing'
    CEL
  }
  let "progressing" {
    value = <<-CEL
      verdict == 'OwnerConflict' ? {'status': 'False', 'reason': 'OwnerConflict', 'message': 'ClusterObjectSet ' + top[0].metadata.name + ' (revision ' + string(top[0].spec.revision) + ') is controlled by ' + top_controller.kind + ' ' + top_controller.name + '; no new revision is created'} :
      verdict == 'UnmanagedRevision' ? {'status': 'False', 'reason': 'UnmanagedRevision', 'message': 'ClusterObjectSet ' + top[0].metadata.name + ' (revision ' + string(top[0].spec.revision) + ') has no controller and lacks the label apps.kubernetes.io/managed-by=object-controller; no new revision is created'} :
      verdict == 'InvalidSpecification' ? {'status': 'False', 'reason': 'InvalidSpecification', 'message': meta_error + '; no revision is created until it is corrected'} :
      verdict == 'WaitingForGarbageCollection' ? {'status': 'True', 'reason': 'NewClusterObjectSetProgressing', 'message': 'waiting for garbage collection of ClusterObjectSet ' + stale[0].metadata.name + ', controlled by an earlier ClusterObjectDeployment ' + self.metadata.name + ' (uid ' + rollout.controller(stale[0]).uid + ')'} :
      verdict == 'RevisionNumberExhausted' ? {'status': 'False', 'reason': 'RevisionNumberExhausted', 'message': 'the highest revision in group ' + self.metadata.name + ' is ' + string(next - 1) + '; revision numbers end at 9999999999'} :
      verdict == 'Create' ? {'status': 'True', 'reason': 'NewClusterObjectSetProgressing', 'message': 'creating ClusterObjectSet ' + self.metadata.name + '-' + string(next)} :
      verdict == 'NewClusterObjectSetProgressed' ? {'status': 'False', 'reason': verdict, 'message': 'ClusterObjectSet ' + cos_name + ' completed its rollout at ' + desired[0].status.completedAt} :
      verdict == 'RevisionObjectCollision' || verdict == 'RevisionInvalidSpecification' || verdict == 'RevisionPreconditionsNotMet' ? {'status': verdict == 'RevisionPreconditionsNotMet' ? 'True' : 'False', 'reason': verdict, 'message': 'ClusterObjectSet ' + cos_name + ': ' + cos_message} :
      verdict == 'ProgressDeadlineExceeded' ? {'status': 'False', 'reason': verdict, 'message': 'ClusterObjectSet ' + cos_name + ' has not completed within ' + string(self.spec.progressDeadlineMinutes) + ' minute(s) of its creation; see its Ready condition'} :
      {'status': 'True', 'reason': 'NewClusterObjectSetProgressing', 'message': 'ClusterObjectSet ' + cos_name + ' is rolling out; see its Ready condition'}
    CEL
  }
  # Available over owned, active, non-deleting revisions.
  let "available" {
    value = <<-CEL
      size(active_owned) == 0 ? {'status': 'False', 'reason': 'NoActiveRevision', 'message': 'no owned active revision exists'} :
      active_owned.exists(s, s.?status.?conditions.orValue([]).exists(c, c.type == 'Ready' && c.status == 'True')) ?
        {'status': 'True', 'reason': 'Available', 'message': 'ready: ' + active_owned.filter(s, s.?status.?conditions.orValue([]).exists(c, c.type == 'Ready' && c.status == 'True')).map(s, s.metadata.name).join(', ')} :
        {'status': 'False', 'reason': 'Unavailable', 'message': 'no owned active revision is ready: ' + active_owned.map(s, s.metadata.name).join(', ')}
    CEL
  }
  # The conditions the report is made of.
  let "wanted_conditions" {
    value = "[{'type': 'Progressing', 'status': progressing.status, 'reason': progressing.reason, 'message': progressing.message}, {'type': 'Available', 'status': available.status, 'reason': available.reason, 'message': available.message}]"
  }
  # The conditions differ from what the revisions say (a wanted condition
  # is missing, or its status, reason or message differs, whoever wrote
  # it), or were set for an earlier generation (a condition's
  # observedGeneration is the generation it was set based upon: every spec
  # edit re-evaluates them, even one that changes no report): report again.
  let "stale_report" {
    value = <<-CEL
      status.?conditions.orValue([]).exists(c, c.?observedGeneration.orValue(0) != dyn(self.metadata).generation) ||
      status.?reason.orValue('') != progressing.reason ||
      status.?message.orValue('') != progressing.message ||
      wanted_conditions.exists(w, !status.?conditions.orValue([]).exists(c, c.type == w.type && c.?status.orValue('') == w.status && c.?reason.orValue('') == w.reason && c.?message.orValue('') == w.message)) ||
      status.?latestRevision.orValue(0) != (size(desired) > 0 ? desired[0].spec.revision : status.?latestRevision.orValue(0)) ||
      size(desired) > 0 && status.?templateHash.orValue('') != hash
    CEL
  }
  let "conditions" {
    value = "rollout.setConditions(status.?conditions.orValue([]), wanted_conditions, now, dyn(self.metadata).generation)"
  }
  let "latest_revision" {
    value = "size(desired) > 0 ? desired[0].spec.revision : status.?latestRevision.orValue(0)"
  }
  # The hash of the template the latest revision was created from: the
  # desired revision's, reported by every report as latestRevision is, so
  # that a status write lost after the creation (a crash) is made good.
  let "template_hash" {
    value = "size(desired) > 0 ? dyn(hash) : dyn(status.?templateHash.orValue(null))"
  }
  # History (seed 002, "Revision history and deletion"): the newest
  # revisionHistoryLimit owned archived revisions are kept; the older ones
  # are beyond the limit and deleted, oldest first, once their teardown
  # finished (COS state Archived): "only owned archived revisions that have
  # finished teardown are eligible; revisions still tearing down are left
  # until cleanup completes". A revision still tearing down is deleted when
  # it is done, and never makes a newer one go in its place.
  let "archived_owned" {
    value = "owned.filter(s, s.spec.lifecycleState == 'Archived' && !has(s.metadata.deletionTimestamp))"
  }
  let "prunable" {
    value = <<-CEL
      size(archived_owned) > param.revision_history_limit ?
        archived_owned.slice(0, size(archived_owned) - param.revision_history_limit).filter(s, s.?status.?state.orValue('') == 'Archived') : []
    CEL
  }

  state "Progressing" {
    initial = true
    recheck = "deadline_set && size(desired) > 0 && deadline_at > now ? deadline_at : now + param.poll_interval"
  }
  state "RevisionPreconditionsNotMet" {
    recheck = "deadline_set && size(desired) > 0 && deadline_at > now ? deadline_at : now + param.poll_interval"
  }
  state "Progressed" {
    outcome = Success
    recheck = "param.poll_interval"
  }
  state "ProgressDeadlineExceeded" {
    outcome = Failure
    recheck = "param.poll_interval"
  }
  state "InvalidSpecification" {
    outcome = Failure
  }
  state "OwnerConflict" {
    outcome = Failure
    recheck = "param.poll_interval"
  }
  state "UnmanagedRevision" {
    outcome = Failure
    recheck = "param.poll_interval"
  }
  state "RevisionObjectCollision" {
    outcome = Failure
    recheck = "param.poll_interval"
  }
  state "RevisionInvalidSpecification" {
    outcome = Failure
    recheck = "param.poll_interval"
  }
  state "RevisionNumberExhausted" {
    outcome = Failure
  }

  # ---- Actions first; each is followed by a report. ----

  # Deleted with foreground propagation, the COD stays, with its
  # deletionTimestamp, until the garbage collector has deleted its
  # revisions: it acts no more (a revision made now would be collected in
  # turn, and the COD would never go).
  transition "being deleted" {
    from = ["*"]
    when = "has(self.metadata.deletionTimestamp)"
  }

  # Adoption sets this COD as controller owner, keeping any other (non
  # controller) references; it never replaces another controller's.
  transition "adopt revisions" {
    from = ["*"]
    when = "size(adoptable) > 0"
    do "adopt" {
      verb     = patch
      for_each = "adoptable"
      target   = "ref(item)"
      body     = "{'metadata': {'ownerReferences': item.metadata.?ownerReferences.orValue([]) + [{'apiVersion': self.apiVersion, 'kind': self.kind, 'name': self.metadata.name, 'uid': uid, 'controller': true, 'blockOwnerDeletion': true}]}}"
    }
    to      = Progressing
    reason  = RevisionsAdopted
    message = "'adopted ' + adoptable.map(s, s.metadata.name).join(', ')"

    on "*" "*" {
      to     = Progressing
      reason = AdoptionFailed
      after  = "param.retry_interval"
    }
  }

  # A new revision: <name>-<next>, owned and Active, with the controller's
  # group, revision, lifecycle state, owner reference, template-hash label
  # and managed-by label over whatever the template says.
  transition "create revision" {
    from = ["*"]
    when = "verdict == 'Create'"
    do "create" {
      verb   = create
      target = "{'apiVersion': 'olm.operatorframework.io/v1', 'kind': 'ClusterObjectSet', 'namespace': '', 'name': self.metadata.name + '-' + string(next)}"
      body   = <<-CEL
        {
          'apiVersion': 'olm.operatorframework.io/v1',
          'kind': 'ClusterObjectSet',
          'metadata': {
            'name': self.metadata.name + '-' + string(next),
            'labels': patch.merge(dyn(self.spec.template).?metadata.?labels.orValue({}), {
              'olm.operatorframework.io/template-hash': hash,
              'apps.kubernetes.io/managed-by': 'object-controller'
            }),
            'annotations': dyn(self.spec.template).?metadata.?annotations.orValue({}),
            'ownerReferences': [{
              'apiVersion': self.apiVersion, 'kind': self.kind, 'name': self.metadata.name,
              'uid': uid, 'controller': true, 'blockOwnerDeletion': true
            }]
          },
          'spec': patch.merge(self.spec.template.spec, {
            'group': self.metadata.name,
            'revision': next,
            'lifecycleState': 'Active'
          })
        }
      CEL
    }
    to      = Progressing
    reason  = RevisionCreated
    message = "'created ClusterObjectSet ' + self.metadata.name + '-' + string(next)"
    set     = { latestRevision = "next", templateHash = "hash" }

    # A failed creation consumes no deadline budget: the budget starts at the
    # creationTimestamp of the COS that exists.
    on "*" "*" {
      set    = {} # not the transition's
      to     = Progressing
      reason = RevisionCreateFailed
      after  = "param.retry_interval"
    }
  }

  # Pruning keeps the state: a resting Progressed COD stays Progressed.
  transition "prune history" {
    from = [Progressed]
    when = "size(prunable) > 0"
    do "prune" {
      verb     = delete
      for_each = "prunable"
      target   = "ref(item)"
    }
    to      = Progressed
    reason  = RevisionsPruned
    message = "'pruned ' + prunable.map(s, s.metadata.name).join(', ') + ' (revisionHistoryLimit ' + string(param.revision_history_limit) + ')'"

    # Already gone: the list it was pruned from was behind the server (a
    # cache not yet showing a delete, this engine's own included). Looking
    # again at once would find it listed still, and prune it again and
    # again within the reconcile (the fault schedules of issue 18, stale
    # reads in cod/history*: MicroStepLimitExceeded); the next look is
    # after retry_interval.
    on "prune" "not_found" {
      to     = Progressed
      reason = RevisionsPruned
      after  = "param.retry_interval"
    }
    on "*" "*" {
      to     = Progressing
      reason = PruneFailed
      after  = "param.retry_interval"
    }
  }

  transition "prune history while rolling out" {
    from = [Progressing, RevisionPreconditionsNotMet, ProgressDeadlineExceeded, InvalidSpecification, OwnerConflict, UnmanagedRevision, RevisionObjectCollision, RevisionInvalidSpecification, RevisionNumberExhausted]
    when = "size(prunable) > 0"
    do "prune" {
      verb     = delete
      for_each = "prunable"
      target   = "ref(item)"
    }
    to      = Progressing
    reason  = RevisionsPruned
    message = "'pruned ' + prunable.map(s, s.metadata.name).join(', ') + ' (revisionHistoryLimit ' + string(param.revision_history_limit) + ')'"

    # As in "prune history".
    on "prune" "not_found" {
      to     = Progressing
      reason = RevisionsPruned
      after  = "param.retry_interval"
    }
    on "*" "*" {
      to     = Progressing
      reason = PruneFailed
      after  = "param.retry_interval"
    }
  }

  # ---- Reports: one per Progressing reason. ----

  transition "report progressing" {
    from    = ["*"]
    when    = "progressing.reason == 'NewClusterObjectSetProgressing' && stale_report"
    to      = Progressing
    reason  = NewClusterObjectSetProgressing
    message = "progressing.message"
    set     = { conditions = "conditions", latestRevision = "latest_revision", templateHash = "template_hash" }
  }
  transition "report preconditions not met" {
    from    = ["*"]
    when    = "progressing.reason == 'RevisionPreconditionsNotMet' && stale_report"
    to      = RevisionPreconditionsNotMet
    reason  = RevisionPreconditionsNotMet
    message = "progressing.message"
    set     = { conditions = "conditions", latestRevision = "latest_revision", templateHash = "template_hash" }
  }
  transition "report progressed" {
    from    = ["*"]
    when    = "progressing.reason == 'NewClusterObjectSetProgressed' && stale_report"
    to      = Progressed
    reason  = NewClusterObjectSetProgressed
    message = "progressing.message"
    set     = { conditions = "conditions", latestRevision = "latest_revision", templateHash = "template_hash" }
  }
  transition "report deadline exceeded" {
    from    = ["*"]
    when    = "progressing.reason == 'ProgressDeadlineExceeded' && stale_report"
    to      = ProgressDeadlineExceeded
    reason  = ProgressDeadlineExceeded
    message = "progressing.message"
    set     = { conditions = "conditions", latestRevision = "latest_revision", templateHash = "template_hash" }
  }
  transition "report invalid specification" {
    from    = ["*"]
    when    = "progressing.reason == 'InvalidSpecification' && stale_report"
    to      = InvalidSpecification
    reason  = InvalidSpecification
    message = "progressing.message"
    set     = { conditions = "conditions", latestRevision = "latest_revision", templateHash = "template_hash" }
  }
  transition "report owner conflict" {
    from    = ["*"]
    when    = "progressing.reason == 'OwnerConflict' && stale_report"
    to      = OwnerConflict
    reason  = OwnerConflict
    message = "progressing.message"
    set     = { conditions = "conditions", latestRevision = "latest_revision", templateHash = "template_hash" }
  }
  transition "report unmanaged revision" {
    from    = ["*"]
    when    = "progressing.reason == 'UnmanagedRevision' && stale_report"
    to      = UnmanagedRevision
    reason  = UnmanagedRevision
    message = "progressing.message"
    set     = { conditions = "conditions", latestRevision = "latest_revision", templateHash = "template_hash" }
  }
  transition "report object collision" {
    from    = ["*"]
    when    = "progressing.reason == 'RevisionObjectCollision' && stale_report"
    to      = RevisionObjectCollision
    reason  = RevisionObjectCollision
    message = "progressing.message"
    set     = { conditions = "conditions", latestRevision = "latest_revision", templateHash = "template_hash" }
  }
  transition "report revision invalid" {
    from    = ["*"]
    when    = "progressing.reason == 'RevisionInvalidSpecification' && stale_report"
    to      = RevisionInvalidSpecification
    reason  = RevisionInvalidSpecification
    message = "progressing.message"
    set     = { conditions = "conditions", latestRevision = "latest_revision", templateHash = "template_hash" }
  }
  transition "report exhausted" {
    from    = ["*"]
    when    = "progressing.reason == 'RevisionNumberExhausted' && stale_report"
    to      = RevisionNumberExhausted
    reason  = RevisionNumberExhausted
    message = "progressing.message"
    set     = { conditions = "conditions", latestRevision = "latest_revision", templateHash = "template_hash" }
  }

  # ---- statecraft verify: findings the rules mean to have. ----

  accept "states other starting objects reach" {
    finding = unreached
    states  = [RevisionPreconditionsNotMet, ProgressDeadlineExceeded, InvalidSpecification, OwnerConflict, UnmanagedRevision, RevisionObjectCollision, RevisionInvalidSpecification, RevisionNumberExhausted, "clusterobjectset.PreconditionsNotMet", "clusterobjectset.ObjectCollision", "clusterobjectset.InvalidSpecification", "clusterobjectset.TearingDown", "clusterobjectset.Archived"]
    because = "verify starts from one valid deployment (examples/cod/my-app) and its spec edit bumps the generation without changing the template, so no second revision, invalid spec, foreign owner, missing Secret or unmet deadline arises; spec/conformance/cod shows each state (preconditions, deadline, invalid-metadata, owner-conflict, unmanaged, collision, invalid-revision, exhausted, history)"
  }
  accept "a finished rollout rests" {
    finding = stuck
    states  = [Progressed]
    reasons = [NewClusterObjectSetProgressed]
    because = "seed 002: a rollout that completed stays Progressed until the template changes, which verify's spec edit (a generation bump) does not do"
  }
}
