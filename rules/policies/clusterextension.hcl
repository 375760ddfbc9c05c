# ClusterExtension with the BoxcutterRuntime (seed 002_183783a8d8248a90,
# "Relationship with ClusterExtension"; where the seed is silent, what
# operator-controller does: /work/shared/reference/olm-cod-cos.md and its
# boxcutter/orb reconcile steps). The extension applies a
# ClusterObjectDeployment with its own name, which it owns (controller owner
# reference); the COD owns its ClusterObjectSet revisions and each revision
# the objects it manages. The extension reports Installed and Progressing
# from the COD's rollout and its revisions.
# Load all three: rules = ["clusterextension", "clusterobjectdeployment",
# "clusterobjectset"].
#
# Simplifications, said once here and in spec/conformance/README.md:
# - BoxcutterRuntime is this policy's behaviour: it always takes the COD
#   path; there is no Helm path and no feature gate.
# - No catalog is resolved and no image unpacked. spec.bundle stands for
#   what resolution and unpacking produce: the bundle's name, version,
#   optional image reference and its objects in ClusterObjectSet phases.
#   Editing spec.bundle is an upgrade. spec.namespace, spec.serviceAccount
#   and spec.source have the upstream shape and are not acted upon (the
#   package name is recorded on each revision).
# - The COD gets no progress deadline and no probes beyond the
#   ClusterObjectSet's default ones.
#
# As operator-controller does, the bundle's name, version, package and
# image reference travel as annotations of the COD template to every
# revision; the installed bundle is read back from the latest owned, active
# revision that recorded status.completedAt (installation is historical, as
# completion is). Revisions are found by their group, the extension's name,
# not by labels (COD-97); only revisions the extension's COD controls count,
# so a foreign member of the group is never reported as installed.
#
# Progressing (always True here, as operator-controller reports it):
#   Succeeded   the revision of the current template completed ("Desired
#               state reached");
#   Retrying    the COD reports any other Progressing reason than
#               NewClusterObjectSetProgressing/NewClusterObjectSetProgressed
#               (the seed: OwnerConflict; operator-controller maps errors
#               and blocked phases to Retrying too), with the COD's message
#               unchanged; or applying the COD failed; or a COD of that name
#               is controlled by someone else;
#   RollingOut  otherwise, with the COD's message when it is rolling out.
# Installed: True/Succeeded while a bundle is installed, through upgrades
# and conflicts; otherwise False with "No bundle installed", reason Failed
# when the extension is Retrying (an error prevents installation), Absent
# while a healthy first rollout is under way (operator-controller's
# determineFailureReason). Both conditions carry the current generation.
machine "clusterextension" {
  description = "Apply a ClusterObjectDeployment named like the extension and report Installed and Progressing from its rollout."

  resource "olm.operatorframework.io/v1" "ClusterExtension" {
    scope  = Cluster
    schema = "crd:olm.operatorframework.io_clusterextensions.yaml"
  }

  # Retry of a failed apply of the ClusterObjectDeployment.
  param "retry_interval" {
    type    = duration
    default = "10s"
    valid   = "value > duration('0s')"
  }
  # A resting extension reads its COD and revisions again this often; the
  # COD's status writes wake it at once (it is the COD's controller owner).
  param "poll_interval" {
    type    = duration
    default = "10m"
    valid   = "value > duration('0s')"
  }

  observe "deployment" {
    get = "{'apiVersion': 'olm.operatorframework.io/v1', 'kind': 'ClusterObjectDeployment', 'namespace': '', 'name': self.metadata.name}"
  }
  observe "sets" {
    list = "{'apiVersion': 'olm.operatorframework.io/v1', 'kind': 'ClusterObjectSet', 'namespace': ''}"
  }

  let "uid" {
    value = "dyn(self.metadata).uid"
  }
  let "generation" {
    value = "dyn(self.metadata).generation"
  }
  # The bundle's identity, carried to every revision (operator-controller's
  # revision annotations).
  let "annotations" {
    value = <<-CEL
      {
        'olm.operatorframework.io/bundle-name': self.spec.bundle.name,
        'olm.operatorframework.io/bundle-version': self.spec.bundle.version,
        ?'olm.operatorframework.io/package-name': self.spec.?source.?catalog.?packageName,
        ?'olm.operatorframework.io/bundle-reference': self.spec.bundle.?image
      }
    CEL
  }
  # The ClusterObjectDeployment this extension wants: its name, this
  # extension as controller owner, the bundle's objects as the template.
  let "desired" {
    value = <<-CEL
      {
        'apiVersion': 'olm.operatorframework.io/v1',
        'kind': 'ClusterObjectDeployment',
        'metadata': {
          'name': self.metadata.name,
          'ownerReferences': [{
            'apiVersion': self.apiVersion, 'kind': self.kind, 'name': self.metadata.name,
            'uid': uid, 'controller': true, 'blockOwnerDeletion': true
          }]
        },
        'spec': {
          'template': {
            'metadata': {'annotations': annotations},
            'spec': {
              'phases': self.spec.bundle.phases,
              ?'collisionProtection': self.spec.bundle.?collisionProtection
            }
          }
        }
      }
    CEL
  }
  let "cod_controller" {
    value = "rollout.controller(deployment.object)"
  }
  # A COD of this name controlled by another owner is not taken over.
  let "foreign" {
    value = "deployment.exists && has(cod_controller.uid) && cod_controller.?uid.orValue('') != uid"
  }
  let "cod_current" {
    value = "deployment.exists && patch.contains(deployment.object, desired)"
  }
  let "cod_uid" {
    value = "deployment.exists && !foreign ? string(deployment.object.metadata.uid) : ''"
  }
  # The COD's revisions: the group is the COD's name, which is this
  # extension's; owned means the COD is the controller.
  let "owned_active" {
    value = <<-CEL
      cod_uid == '' ? [] :
      rollout.byRevision(sets.items.filter(s, s.spec.group == self.metadata.name)).filter(s,
        rollout.controller(s).?uid.orValue('') == cod_uid &&
        s.spec.lifecycleState == 'Active' && !has(s.metadata.deletionTimestamp))
    CEL
  }
  let "completed" {
    value = "owned_active.filter(s, s.?status.?completedAt.hasValue())"
  }
  # The installed revision: the latest one that completed.
  let "installed" {
    value = "size(completed) > 0 ? [completed[size(completed) - 1]] : []"
  }
  let "installed_name" {
    value = "size(installed) > 0 ? string(installed[0].metadata.?annotations[?'olm.operatorframework.io/bundle-name'].orValue('')) : ''"
  }
  let "installed_version" {
    value = "size(installed) > 0 ? string(installed[0].metadata.?annotations[?'olm.operatorframework.io/bundle-version'].orValue('')) : ''"
  }
  let "installed_reference" {
    value = "size(installed) > 0 ? string(installed[0].metadata.?annotations[?'olm.operatorframework.io/bundle-reference'].orValue(installed_name)) : ''"
  }
  # The current template's revision completed: the COD labels each revision
  # with the hash of the template that produced it.
  let "target_done" {
    value = "cod_current && completed.exists(s, s.metadata.?labels[?'olm.operatorframework.io/template-hash'].orValue('') == rollout.templateHash(deployment.object.spec.template))"
  }
  let "cod_progressing" {
    value = "deployment.exists ? deployment.object.?status.?conditions.orValue([]).filter(c, c.type == 'Progressing') : []"
  }
  let "cod_reason" {
    value = "size(cod_progressing) > 0 ? string(cod_progressing[0].reason) : ''"
  }
  let "cod_message" {
    value = "size(cod_progressing) > 0 ? string(cod_progressing[0].?message.orValue('')) : ''"
  }
  let "verdict" {
    value = <<-CEL
      foreign ? 'Foreign' :
      cod_reason != '' && !(cod_reason in ['NewClusterObjectSetProgressing', 'NewClusterObjectSetProgressed']) ? 'Retrying' :
      target_done ? 'Succeeded' :
      'RollingOut'
    CEL
  }
  let "progress" {
    value = <<-CEL
      verdict == 'Foreign' ? {'reason': 'Retrying', 'message': 'ClusterObjectDeployment ' + self.metadata.name + ' is controlled by ' + string(cod_controller.kind) + ' ' + string(cod_controller.name) + '; it is not taken over'} :
      verdict == 'Retrying' ? {'reason': 'Retrying', 'message': cod_message} :
      verdict == 'Succeeded' ? {'reason': 'Succeeded', 'message': 'Desired state reached'} :
      cod_reason == 'NewClusterObjectSetProgressing' ? {'reason': 'RollingOut', 'message': cod_message} :
      {'reason': 'RollingOut', 'message': 'waiting for ClusterObjectDeployment ' + self.metadata.name + ' to roll out bundle ' + self.spec.bundle.name}
    CEL
  }
  # Installed, for a given Progressing reason.
  let "installed_condition" {
    value = <<-CEL
      size(installed) > 0 ?
        {'type': 'Installed', 'status': 'True', 'reason': 'Succeeded', 'message': 'Installed bundle ' + installed_reference + ' successfully'} :
        {'type': 'Installed', 'status': 'False', 'reason': progress.reason == 'Retrying' ? 'Failed' : 'Absent', 'message': 'No bundle installed'}
    CEL
  }
  let "install" {
    value = "size(installed) > 0 ? dyn({'bundle': {'name': installed_name, 'version': installed_version}}) : dyn(null)"
  }
  let "active_revisions" {
    value = "owned_active.map(s, {'name': s.metadata.name})"
  }
  let "conditions" {
    value = "rollout.setConditions(status.?conditions.orValue([]), [{'type': 'Progressing', 'status': 'True', 'reason': progress.reason, 'message': progress.message}, installed_condition], now, generation)"
  }
  let "installed_now" {
    value = "status.?conditions.orValue([]).filter(c, c.type == 'Installed')"
  }
  # What the status says differs from what the COD and its revisions say, or
  # the conditions do not yet acknowledge the current spec.
  let "stale_report" {
    value = <<-CEL
      status.?reason.orValue('') != progress.reason ||
      status.?message.orValue('') != progress.message ||
      size(installed_now) == 0 || installed_now[0].status != installed_condition.status ||
      installed_now[0].?reason.orValue('') != installed_condition.reason ||
      installed_now[0].?message.orValue('') != installed_condition.message ||
      status.?install.?bundle.?name.orValue('') != installed_name ||
      status.?install.?bundle.?version.orValue('') != installed_version ||
      status.?activeRevisions.orValue([]).map(r, r.name) != owned_active.map(s, s.metadata.name) ||
      status.?conditions.orValue([]).exists(c, c.?observedGeneration.orValue(0) != generation)
    CEL
  }

  state "Pending" {
    initial = true
    recheck = "param.poll_interval"
  }
  state "RollingOut" {
    recheck = "param.poll_interval"
  }
  state "Retrying" {
    recheck = "param.poll_interval"
  }
  state "Installed" {
    outcome = Success
    recheck = "param.poll_interval"
  }

  # Create the COD, or bring it back to the desired template and owner.
  # The status keeps its state; a report follows in the same reconcile.
  transition "apply deployment" {
    from = ["*"]
    when = "!foreign && !cod_current && status.?reason.orValue('') != 'DeploymentApplied'"
    do "apply" {
      verb   = apply
      target = "{'apiVersion': 'olm.operatorframework.io/v1', 'kind': 'ClusterObjectDeployment', 'namespace': '', 'name': self.metadata.name}"
      body   = "desired"
      expect = "patch.contains(result, desired)"
    }
    reason  = DeploymentApplied
    message = "'applied ClusterObjectDeployment ' + self.metadata.name + ' for bundle ' + self.spec.bundle.name"

    # A refused or failed apply: Progressing=True/Retrying with the error,
    # retried after retry_interval; the installed bundle is kept.
    on "*" "*" {
      to      = Retrying
      reason  = Retrying
      message = "'applying ClusterObjectDeployment ' + self.metadata.name + ': ' + last.message"
      after   = "param.retry_interval"
      set = {
        conditions      = "rollout.setConditions(status.?conditions.orValue([]), [{'type': 'Progressing', 'status': 'True', 'reason': 'Retrying', 'message': 'applying ClusterObjectDeployment ' + self.metadata.name + ': ' + last.message}, size(installed) > 0 ? installed_condition : {'type': 'Installed', 'status': 'False', 'reason': 'Failed', 'message': 'No bundle installed'}], now, generation)"
        install         = "install"
        activeRevisions = "active_revisions"
      }
    }
  }

  # ---- Reports: one per Progressing reason. ----

  transition "report installed" {
    from    = ["*"]
    when    = "cod_current && verdict == 'Succeeded' && stale_report"
    to      = Installed
    reason  = Succeeded
    message = "progress.message"
    set     = { conditions = "conditions", install = "install", activeRevisions = "active_revisions" }
  }
  transition "report rolling out" {
    from    = ["*"]
    when    = "cod_current && verdict == 'RollingOut' && stale_report"
    to      = RollingOut
    reason  = RollingOut
    message = "progress.message"
    set     = { conditions = "conditions", install = "install", activeRevisions = "active_revisions" }
  }
  transition "report retrying" {
    from    = ["*"]
    when    = "(cod_current || foreign) && verdict in ['Retrying', 'Foreign'] && stale_report"
    to      = Retrying
    reason  = Retrying
    message = "progress.message"
    set     = { conditions = "conditions", install = "install", activeRevisions = "active_revisions" }
  }

  # ---- statecraft verify: findings the rules mean to have. ----

  accept "a revision's apply retried" {
    finding = unbounded_retries
    states  = [Retrying]
    because = "explored with the ClusterObjectDeployment and ClusterObjectSet machines, a revision whose apply fails every time stays in PreconditionsNotMet, which seed 002 makes a retrying state (every retry_interval); the extension reports Retrying meanwhile"
  }
  accept "revision states its objects do not reach" {
    finding = unreached
    states  = ["clusterobjectdeployment.ProgressDeadlineExceeded", "clusterobjectdeployment.InvalidSpecification", "clusterobjectdeployment.UnmanagedRevision", "clusterobjectdeployment.RevisionObjectCollision", "clusterobjectdeployment.RevisionNumberExhausted", "clusterobjectset.ObjectCollision", "clusterobjectset.TearingDown", "clusterobjectset.Archived"]
    because = "the extension's bundle makes a valid deployment whose revisions carry its own numbers and objects: no deployment spec the schema refuses, no foreign or ownerless revision, no collision with another revision, and verify's spec edit bumps a generation without changing the bundle, so no second revision is archived or torn down and no deadline passes unmet; spec/conformance/cod shows each state (deadline, invalid-metadata, unmanaged, collision, exhausted, history)"
  }
}
