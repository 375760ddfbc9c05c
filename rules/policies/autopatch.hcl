# Automatic patch upgrades (seed 004, ADR 0116 with its 2026-11-04
# amendment): once a minute, start at most one upgrade TalosOperation per
# TalosCluster for the newest final patch of the running minor of Talos,
# then Kubernetes, taken from the release check's status.upgradeTargets and
# filtered by the compatibility table; only inside the daily UTC window and
# only while the seven guards hold; halt on a paused automatic operation
# until a person acknowledges it or the world clears it; never retry.
#
# Which object the machine binds: the IchorInstallation. The seed's loop is
# one installation-wide tick ("the halt state is global and the setting is
# read once", section 4): the setting, its effective values, the halt, its
# acknowledgement and the freshness of the release lists all live on the
# installation, and the installation's params are the controller's flags. So
# one machine per installation lists the clusters and their operations and,
# each minute, walks the clusters in name order: one start per micro-step,
# one component per cluster. A machine bound to TalosCluster would have to
# share a halt it cannot hold in its own status and read settings that are
# not its own.
#
# The controller never writes a TalosCluster spec: the version and the
# operation are written as the delegated ServiceAccount ichor-auto-patch
# (action identity), an update with the resourceVersion just read, so a
# person's edit in between is never overwritten (a conflict, nothing
# created).
#
# Every decision is here. library supplies only computations:
# upgrade.newestPatch, upgrade.compatible, upgrade.validWindow,
# upgrade.inWindow, upgrade.leaseHeld, patch.merge, ref.
machine "autopatch" {
  description = "Start automatic patch upgrades of Talos and Kubernetes, one per cluster, inside a daily window; halt on a paused automatic operation."
  max_steps   = 64

  resource "ichor.maesh.dev/v1alpha1" "IchorInstallation" {
    scope  = Namespaced
    schema = "crd:ichor.maesh.dev_ichorinstallations.yaml"
  }

  # ---- The controller flags (chart values autoPatch.enabled, components,
  # window, settingsReadOnly). spec.autoPatch wins field by field. ----

  # --auto-patch (chart autoPatch.enabled).
  param "auto_patch" {
    type    = bool
    default = false
  }
  # --auto-patch-components (chart autoPatch.components), comma-separated;
  # empty means all three.
  param "auto_patch_components" {
    type    = string
    default = ""
    valid   = "value.split(',').map(c, c.trim()).filter(c, c != '').all(c, c in ['talos', 'cilium', 'kubernetes'])"
  }
  # --auto-patch-window (chart autoPatch.window), HH:MM-HH:MM UTC; empty
  # means any time.
  param "auto_patch_window" {
    type    = string
    default = ""
    valid   = "upgrade.validWindow(value)"
  }
  # --settings-read-only: spec.autoPatch's enabled, components and window
  # are ignored; acknowledgedHalt is still honoured.
  param "settings_read_only" {
    type    = bool
    default = false
  }
  # The controller's namespace: the delegated identity is
  # system:serviceaccount:<namespace>:ichor-auto-patch.
  param "controller_namespace" {
    type    = string
    default = "ichor-system"
    valid   = "value != ''"
  }

  # ---- Policy constants of the seed. ----

  # The tick.
  param "tick" {
    type    = duration
    default = "1m"
    valid   = "value > duration('0s')"
  }
  # Each tick comes up to this much later (a tenth of the tick), by an
  # offset fixed by the installation and the tick: the same on every run.
  param "tick_jitter" {
    type    = duration
    default = "6s"
    valid   = "value >= duration('0s')"
  }
  # Guard 4: release lists older than this are stale (the check runs every
  # six hours).
  param "release_max_age" {
    type    = duration
    default = "48h"
    valid   = "value > duration('0s')"
  }
  # Guard 7: no second start on a cluster within this time.
  param "start_guard" {
    type    = duration
    default = "2m"
    valid   = "value >= duration('0s')"
  }
  # Tries to create the operation after its version was written.
  param "create_tries" {
    type    = int
    default = 3
    valid   = "value >= 1"
  }
  param "create_retry_delay" {
    type    = duration
    default = "10s"
    valid   = "value > duration('0s')"
  }

  # ---- What the tick reads: nothing but the installation while the
  # setting is off and nothing is halted. ----

  observe "clusters" {
    when = "(param.settings_read_only ? param.auto_patch : self.spec.?autoPatch.?enabled.orValue(param.auto_patch)) || status.?state.orValue('Off') in ['Active', 'Halted', 'Creating']"
    list = "{'apiVersion': 'ichor.maesh.dev/v1alpha1', 'kind': 'TalosCluster', 'namespace': ''}"
  }
  observe "operations" {
    when = "(param.settings_read_only ? param.auto_patch : self.spec.?autoPatch.?enabled.orValue(param.auto_patch)) || status.?state.orValue('Off') in ['Active', 'Halted', 'Creating']"
    list = "{'apiVersion': 'ichor.maesh.dev/v1alpha1', 'kind': 'TalosOperation', 'namespace': ''}"
  }
  # The cluster locks of ADR 0043: Leases labelled with their cluster's name,
  # in the cluster's namespace.
  observe "locks" {
    when = "(param.settings_read_only ? param.auto_patch : self.spec.?autoPatch.?enabled.orValue(param.auto_patch)) || status.?state.orValue('Off') in ['Active', 'Halted', 'Creating']"
    list = "{'apiVersion': 'coordination.k8s.io/v1', 'kind': 'Lease', 'namespace': '', 'labelSelector': 'ichor.maesh.dev/cluster'}"
  }

  # ---- Settings: spec.autoPatch field by field over the flags. ----

  let "all_components" {
    value = "['talos', 'cilium', 'kubernetes']"
  }
  let "flag_components" {
    value = "param.auto_patch_components.split(',').map(c, c.trim()).filter(c, c != '')"
  }
  let "enabled" {
    value = "param.settings_read_only ? param.auto_patch : self.spec.?autoPatch.?enabled.orValue(param.auto_patch)"
  }
  # Unset falls back to the flag; an empty list (spec or flag) is all three.
  let "components_set" {
    value = "!param.settings_read_only && has(self.spec.autoPatch) && has(self.spec.autoPatch.components) ? self.spec.autoPatch.components : flag_components"
  }
  let "components" {
    value = "size(components_set) == 0 ? all_components : components_set"
  }
  # Unset or empty falls back to the flag (an empty window written through a
  # form means "the chart's").
  let "window" {
    value = "!param.settings_read_only && self.spec.?autoPatch.?window.orValue('') != '' ? self.spec.autoPatch.window : param.auto_patch_window"
  }
  # Honoured under --settings-read-only too.
  let "acknowledged" {
    value = "self.spec.?autoPatch.?acknowledgedHalt.orValue('')"
  }
  let "effective" {
    value = "{'autoPatch': enabled, 'autoPatchComponents': components, 'autoPatchWindow': window}"
  }
  # The CRD refuses these; a value that still arrives (an older CRD, a
  # direct etcd write) is reported and nothing starts. (The observations
  # repeat the switch inline: an observation's when cannot read a let.)
  let "settings_error" {
    value = "!upgrade.validWindow(window) ? 'spec.autoPatch.window ' + window + ' is not a daily UTC window HH:MM-HH:MM' : components.exists(c, !(c in all_components)) ? 'spec.autoPatch.components holds an unknown component: ' + components.filter(c, !(c in all_components)).join(', ') : ''"
  }

  # ---- Operations. ----

  let "reads_ok" {
    value = "clusters.outcome == 'ok' && operations.outcome == 'ok' && locks.outcome == 'ok'"
  }
  let "auto_ops" {
    value = "operations.items.filter(o, o.metadata.?annotations[?'ichor.maesh.dev/auto-patch'].orValue('') == 'true')"
  }
  # Completed talos, kubernetes or cni operations the patcher did not start.
  let "manual_done" {
    value = "operations.items.filter(o, o.metadata.?annotations[?'ichor.maesh.dev/auto-patch'].orValue('') != 'true' && o.spec.type in ['talos', 'kubernetes', 'cni'] && o.?status.?phase.orValue('') == 'Completed')"
  }
  # Halts acknowledged before the one spec.autoPatch.acknowledgedHalt names
  # now: acknowledgedHalt holds one name, and two automatic operations can
  # be paused at once (started on two clusters before either failed). The
  # seed's acknowledgement ends a halt for good ("the value is not removed,
  # and a later halt names another operation"), so the machine remembers
  # each acknowledged halt in status.autoPatch.acknowledged while its
  # operation stays paused; acknowledging the second halt must not bring
  # back the first.
  let "acknowledged_before" {
    value = "status.?autoPatch.?acknowledged.orValue([])"
  }
  # Those whose operation is still paused, kept at the next acknowledgement
  # (the others are spent: the list never holds more than the paused
  # operations and the halt being acknowledged).
  let "acknowledged_kept" {
    value = "acknowledged_before.filter(n, auto_ops.exists(o, o.metadata.namespace + '/' + o.metadata.name == n && o.?status.?phase.orValue('') == 'Paused'))"
  }
  # Automatic operations that halt the patcher: Paused (a failed step or a
  # person's pause), not acknowledged by name (now or before), and not
  # followed by a completed manual upgrade of the same cluster.
  let "halting" {
    value = "auto_ops.filter(o, o.?status.?phase.orValue('') == 'Paused' && o.metadata.namespace + '/' + o.metadata.name != acknowledged && !(o.metadata.namespace + '/' + o.metadata.name in acknowledged_before) && !manual_done.exists(m, m.metadata.namespace == o.metadata.namespace && m.spec.cluster == o.spec.cluster && timestamp(m.metadata.creationTimestamp) > timestamp(o.metadata.creationTimestamp)))"
  }
  let "halt_message" {
    value = "'automatic operation ' + halting[0].metadata.namespace + '/' + halting[0].metadata.name + ' is paused: ' + halting[0].?status.?failureReason.orValue(halting[0].?status.?reason.orValue('paused'))"
  }
  let "halted_name" {
    value = "status.?autoPatch.?haltedOperation.orValue('')"
  }
  let "halted_op" {
    value = "operations.items.filter(o, o.metadata.namespace + '/' + o.metadata.name == halted_name)"
  }

  # ---- Guards 2, 3 and 4: the installation-wide gate, in the seed's order;
  # '' when open. ----

  let "targets" {
    value = "self.status.?upgradeTargets"
  }
  let "gate" {
    value = <<-CEL
      !reads_ok ? 'ReadFailed' :
      self.status.?installedVersion.orValue('') != self.spec.?version.orValue('') ? 'IchorUpgradeInProgress' :
      !upgrade.inWindow(window, now) ? 'OutsideWindow' :
      !targets.hasValue() || !has(targets.value().checkedAt) ? 'ReleaseListsMissing' :
      now - timestamp(dyn(targets.value().checkedAt)) >= param.release_max_age ? 'ReleaseListsStale' : ''
    CEL
  }

  # ---- Guards 5, 6 and 7 and the candidates, per cluster. ----

  # Guard 5: an unfinished operation (Pending, Running or Paused; a
  # shutdown resting in ShutDown is finished), or the cluster's Lease held.
  let "busy" {
    value = "operations.items.filter(o, o.?status.?phase.orValue('Pending') in ['Pending', 'Running', 'Paused']).map(o, o.metadata.namespace + '/' + o.spec.cluster)"
  }
  let "locked" {
    value = "locks.items.filter(l, upgrade.leaseHeld(l, now)).map(l, l.metadata.namespace + '/' + l.metadata.labels['ichor.maesh.dev/cluster'])"
  }
  # Guard 7: started by the patcher in the last two minutes, by the
  # operations listed or by the patcher's own record (reads that have not
  # caught up).
  let "started_record" {
    value = "status.?autoPatch.?started.orValue({})"
  }
  let "recent" {
    value = "auto_ops.filter(o, now - timestamp(o.metadata.creationTimestamp) < param.start_guard).map(o, o.metadata.namespace + '/' + o.spec.cluster) + started_record.filter(k, now - timestamp(started_record[k]) < param.start_guard)"
  }
  let "table" {
    value = "targets.hasValue() ? targets.value().?compatibility.orValue([]) : []"
  }
  # Candidates: the newest final patch of the running minor among the
  # listed versions the compatibility table allows with what the cluster
  # runs. Kubernetes needs the running Cilium to be known. Cilium has none:
  # its patches reach a cluster with an Ichor release (amendment), so
  # 'cilium' in components selects nothing.
  let "candidates" {
    value = <<-CEL
      clusters.items.map(c, {
        'key': c.metadata.namespace + '/' + c.metadata.name,
        'cluster': c,
        'talos': 'talos' in components && targets.hasValue()
          ? upgrade.newestPatch(c.spec.talosVersion, targets.value().?talos.orValue([]).filter(v, upgrade.compatible(table, v, c.spec.kubernetesVersion, '')))
          : '',
        'kubernetes': 'kubernetes' in components && targets.hasValue() && c.?status.?ciliumVersion.orValue('') != ''
          ? upgrade.newestPatch(c.spec.kubernetesVersion, targets.value().?kubernetes.orValue([]).filter(v, upgrade.compatible(table, c.spec.talosVersion, v, c.status.ciliumVersion)))
          : ''
      })
    CEL
  }
  # A cluster opts out by keeping the hold annotation of ADR 0043
  # (ichor.maesh.dev/hold: "true") on every approved machine (seed 004,
  # section 7); Ichor's cluster reconciler reports each machine's
  # annotations in status.machines[].annotations. The executors honour the
  # hold too (they upgrade no held machine), so starting an operation there
  # would only move the spec ahead of the machines: the patcher leaves the
  # cluster alone.
  let "held" {
    value = <<-CEL
      clusters.items.filter(c,
        c.?status.?machines.orValue([]).exists(m, m.?approved.orValue(false)) &&
        c.status.machines.filter(m, m.?approved.orValue(false)).all(m, m.?annotations[?'ichor.maesh.dev/hold'].orValue('') == 'true')
      ).map(c, c.metadata.namespace + '/' + c.metadata.name)
    CEL
  }
  # One component per decision: Talos first, then Kubernetes. block is the
  # first guard, in the seed's order, that holds the cluster back; a
  # cluster that opted out is MachinesHeld before any guard.
  let "views" {
    value = <<-CEL
      candidates.map(x, {
        'key': x.key,
        'namespace': x.cluster.metadata.namespace,
        'name': x.cluster.metadata.name,
        'cluster': x.cluster,
        'component': x.talos != '' ? 'talos' : 'kubernetes',
        'field': x.talos != '' ? 'talosVersion' : 'kubernetesVersion',
        'from': x.talos != '' ? x.cluster.spec.talosVersion : x.cluster.spec.kubernetesVersion,
        'to': x.talos != '' ? x.talos : x.kubernetes,
        'block':
          x.key in held ? 'MachinesHeld' :
          x.key in busy ? 'OperationUnfinished' :
          x.key in locked ? 'ClusterLocked' :
          !(x.cluster.?status.?machines.orValue([]).exists(m, m.?approved.orValue(false)) &&
            x.cluster.status.machines.filter(m, m.?approved.orValue(false)).all(m, m.?ready.orValue(false) && !m.?configPending.orValue(false))) ? 'MachinesNotReady' :
          x.key in recent ? 'RecentlyStarted' :
          x.talos == '' && x.kubernetes == '' ? 'NoCandidate' : ''
      })
    CEL
  }
  let "startable" {
    value = "views.filter(v, v.block == '')"
  }
  let "summary" {
    value = "views.map(v, v.key + ' ' + (v.block == '' ? 'eligible' : v.block)).join(', ')"
  }
  # Why nothing starts: the first guard, in the seed's order, that holds
  # some cluster back.
  let "wait_reason" {
    value = <<-CEL
      gate != '' ? gate :
      size(views) == 0 ? 'NoClusters' :
      size(startable) > 0 ? '' :
      views.exists(v, v.block == 'OperationUnfinished') ? 'OperationUnfinished' :
      views.exists(v, v.block == 'ClusterLocked') ? 'ClusterLocked' :
      views.exists(v, v.block == 'MachinesNotReady') ? 'MachinesNotReady' :
      views.exists(v, v.block == 'RecentlyStarted') ? 'RecentlyStarted' :
      views.exists(v, v.block == 'MachinesHeld') ? 'MachinesHeld' : 'NoCandidate'
    CEL
  }

  # ---- The start of the first eligible cluster. ----

  let "next" {
    value = "startable[0]"
  }
  let "identity" {
    value = "'system:serviceaccount:' + param.controller_namespace + ':ichor-auto-patch'"
  }
  let "op_name" {
    value = "next.name + '-autopatch-' + next.component + '-' + next.to.lowerAscii().replace('.', '-').replace('+', '-')"
  }
  let "op_body" {
    value = <<-CEL
      {
        'apiVersion': 'ichor.maesh.dev/v1alpha1',
        'kind': 'TalosOperation',
        'metadata': {
          'name': op_name,
          'namespace': next.namespace,
          'labels': {'ichor.maesh.dev/cluster': next.name},
          'annotations': {
            'ichor.maesh.dev/auto-patch': 'true',
            'ichor.maesh.dev/started-by': 'ichor-auto-patch',
            'ichor.maesh.dev/from-version': next.from
          }
        },
        'spec': {'cluster': next.name, 'type': next.component, 'targetVersion': next.to}
      }
    CEL
  }
  let "started_event" {
    value = <<-CEL
      {
        'apiVersion': 'events.k8s.io/v1',
        'kind': 'Event',
        'metadata': {'name': op_name + '.autopatchstarted', 'namespace': next.namespace},
        'regarding': {'apiVersion': 'ichor.maesh.dev/v1alpha1', 'kind': 'TalosCluster', 'namespace': next.namespace, 'name': next.name},
        'related': {'apiVersion': 'ichor.maesh.dev/v1alpha1', 'kind': 'TalosOperation', 'namespace': next.namespace, 'name': op_name},
        'type': 'Normal',
        'reason': 'AutoPatchStarted',
        'action': 'Upgrade',
        'note': 'automatic patch of ' + next.component + ' from ' + next.from + ' to ' + next.to + ': ' + next.namespace + '/' + op_name,
        'eventTime': microTime(now),
        'reportingController': 'ichor.maesh.dev/auto-patch',
        'reportingInstance': 'statecraft'
      }
    CEL
  }
  let "pending" {
    value = "status.?autoPatch.?pending.orValue({})"
  }
  let "pending_tries" {
    value = "int(pending.?tries.orValue(0))"
  }

  # ---- States. ----

  state "Off" {
    initial    = true
    conditions = { AutoPatchHalted = False }
    recheck    = "param.tick"
    jitter     = "param.tick_jitter"
  }
  state "Active" {
    conditions = { AutoPatchHalted = False }
    recheck    = "param.tick"
    jitter     = "param.tick_jitter"
  }
  # The version of a start is written, its operation not yet created.
  state "Creating" {
    conditions = { AutoPatchHalted = False }
    recheck    = "param.create_retry_delay"
  }
  state "Halted" {
    outcome    = Failure
    conditions = { AutoPatchHalted = True }
    recheck    = "param.tick"
    jitter     = "param.tick_jitter"
  }

  # ---- status.effective, and a SettingsChanged Event when it changes. ----

  transition "report settings (off)" {
    from = [Off]
    when = "status.?effective.orValue({}) != effective"
    do "event" {
      verb     = create
      for_each = "has(status.effective) ? [dyn(int(now))] : []"
      target   = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'namespace': ref(self).namespace, 'name': self.metadata.name + '.settingschanged.' + string(item)}"
      body     = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'metadata': {'name': self.metadata.name + '.settingschanged.' + string(item), 'namespace': ref(self).namespace}, 'regarding': {'apiVersion': self.apiVersion, 'kind': self.kind, 'namespace': ref(self).namespace, 'name': self.metadata.name}, 'type': 'Normal', 'reason': 'SettingsChanged', 'action': 'Configure', 'note': 'auto-patch: ' + string(enabled) + ', components: ' + components.join(',') + ', window: ' + (window == '' ? 'any time' : window), 'eventTime': microTime(now), 'reportingController': 'ichor.maesh.dev/auto-patch', 'reportingInstance': 'statecraft'}"
    }
    to  = Off
    set = { effective = "effective" }
    on "event" "*" {
      to  = Off
      set = { effective = "effective" }
    }
  }
  transition "report settings (active)" {
    from = [Active]
    when = "status.?effective.orValue({}) != effective"
    do "event" {
      verb     = create
      for_each = "has(status.effective) ? [dyn(int(now))] : []"
      target   = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'namespace': ref(self).namespace, 'name': self.metadata.name + '.settingschanged.' + string(item)}"
      body     = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'metadata': {'name': self.metadata.name + '.settingschanged.' + string(item), 'namespace': ref(self).namespace}, 'regarding': {'apiVersion': self.apiVersion, 'kind': self.kind, 'namespace': ref(self).namespace, 'name': self.metadata.name}, 'type': 'Normal', 'reason': 'SettingsChanged', 'action': 'Configure', 'note': 'auto-patch: ' + string(enabled) + ', components: ' + components.join(',') + ', window: ' + (window == '' ? 'any time' : window), 'eventTime': microTime(now), 'reportingController': 'ichor.maesh.dev/auto-patch', 'reportingInstance': 'statecraft'}"
    }
    to  = Active
    set = { effective = "effective" }
    on "event" "*" {
      to  = Active
      set = { effective = "effective" }
    }
  }
  # In Halted the reason and message stay those of the halt.
  transition "report settings (halted on a paused operation)" {
    from = [Halted]
    when = "status.?effective.orValue({}) != effective && status.?autoPatch.?haltCause.orValue('') == 'Paused'"
    do "event" {
      verb     = create
      for_each = "has(status.effective) ? [dyn(int(now))] : []"
      target   = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'namespace': ref(self).namespace, 'name': self.metadata.name + '.settingschanged.' + string(item)}"
      body     = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'metadata': {'name': self.metadata.name + '.settingschanged.' + string(item), 'namespace': ref(self).namespace}, 'regarding': {'apiVersion': self.apiVersion, 'kind': self.kind, 'namespace': ref(self).namespace, 'name': self.metadata.name}, 'type': 'Normal', 'reason': 'SettingsChanged', 'action': 'Configure', 'note': 'auto-patch: ' + string(enabled) + ', components: ' + components.join(',') + ', window: ' + (window == '' ? 'any time' : window), 'eventTime': microTime(now), 'reportingController': 'ichor.maesh.dev/auto-patch', 'reportingInstance': 'statecraft'}"
    }
    to      = Halted
    reason  = AutoPatchHalted
    message = "status.?message.orValue('')"
    set     = { effective = "effective" }
    on "event" "*" {
      to      = Halted
      reason  = AutoPatchHalted
      message = "status.?message.orValue('')"
      set     = { effective = "effective" }
    }
  }
  transition "report settings (halted on a half-start)" {
    from = [Halted]
    when = "status.?effective.orValue({}) != effective && status.?autoPatch.?haltCause.orValue('') != 'Paused'"
    do "event" {
      verb     = create
      for_each = "has(status.effective) ? [dyn(int(now))] : []"
      target   = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'namespace': ref(self).namespace, 'name': self.metadata.name + '.settingschanged.' + string(item)}"
      body     = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'metadata': {'name': self.metadata.name + '.settingschanged.' + string(item), 'namespace': ref(self).namespace}, 'regarding': {'apiVersion': self.apiVersion, 'kind': self.kind, 'namespace': ref(self).namespace, 'name': self.metadata.name}, 'type': 'Normal', 'reason': 'SettingsChanged', 'action': 'Configure', 'note': 'auto-patch: ' + string(enabled) + ', components: ' + components.join(',') + ', window: ' + (window == '' ? 'any time' : window), 'eventTime': microTime(now), 'reportingController': 'ichor.maesh.dev/auto-patch', 'reportingInstance': 'statecraft'}"
    }
    to      = Halted
    reason  = OperationNotCreated
    message = "status.?message.orValue('')"
    set     = { effective = "effective" }
    on "event" "*" {
      to      = Halted
      reason  = OperationNotCreated
      message = "status.?message.orValue('')"
      set     = { effective = "effective" }
    }
  }

  # ---- Guard 1: the setting is on (and valid), and not halted. ----

  transition "invalid settings" {
    from    = [Off, Active]
    when    = "settings_error != '' && status.?reason.orValue('') != 'InvalidSettings'"
    to      = Off
    reason  = InvalidSettings
    message = "settings_error"
  }
  transition "turned on" {
    from   = [Off]
    when   = "enabled && settings_error == ''"
    to     = Active
    reason = Enabled
  }
  transition "turned off" {
    from   = [Active]
    when   = "!enabled"
    to     = Off
    reason = Disabled
    set    = { "autoPatch.blocked" = "null" }
  }

  # A paused automatic operation halts everything, on every cluster.
  transition "halt" {
    from = [Active]
    when = "size(halting) > 0"
    do "event" {
      verb   = create
      target = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'namespace': ref(self).namespace, 'name': self.metadata.name + '.autopatchhalted.' + halting[0].metadata.namespace + '.' + halting[0].metadata.name}"
      body   = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'metadata': {'name': self.metadata.name + '.autopatchhalted.' + halting[0].metadata.namespace + '.' + halting[0].metadata.name, 'namespace': ref(self).namespace}, 'regarding': {'apiVersion': self.apiVersion, 'kind': self.kind, 'namespace': ref(self).namespace, 'name': self.metadata.name}, 'related': {'apiVersion': 'ichor.maesh.dev/v1alpha1', 'kind': 'TalosOperation', 'namespace': halting[0].metadata.namespace, 'name': halting[0].metadata.name}, 'type': 'Warning', 'reason': 'AutoPatchHalted', 'action': 'Halt', 'note': halt_message, 'eventTime': microTime(now), 'reportingController': 'ichor.maesh.dev/auto-patch', 'reportingInstance': 'statecraft'}"
    }
    to      = Halted
    reason  = AutoPatchHalted
    message = "halt_message"
    set = {
      "autoPatch.haltedOperation" = "halting[0].metadata.namespace + '/' + halting[0].metadata.name"
      "autoPatch.haltCause"       = "'Paused'"
      "autoPatch.haltedCluster"   = "halting[0].metadata.namespace + '/' + halting[0].spec.cluster"
      "autoPatch.haltedSince"     = "halting[0].metadata.creationTimestamp"
      "autoPatch.announced"       = "halting[0].metadata.namespace + '/' + halting[0].metadata.name"
      "autoPatch.blocked"         = "null"
    }
    on "event" "*" {
      to      = Halted
      reason  = AutoPatchHalted
      message = "halt_message"
      set = {
        "autoPatch.haltedOperation" = "halting[0].metadata.namespace + '/' + halting[0].metadata.name"
        "autoPatch.haltCause"       = "'Paused'"
        "autoPatch.haltedCluster"   = "halting[0].metadata.namespace + '/' + halting[0].spec.cluster"
        "autoPatch.haltedSince"     = "halting[0].metadata.creationTimestamp"
        "autoPatch.announced"       = "halting[0].metadata.namespace + '/' + halting[0].metadata.name"
        "autoPatch.blocked"         = "null"
      }
    }
  }

  # ---- Halted: announce once, then wait for one of the four ends. ----

  # A halt entered from Creating (the operation could not be created) is
  # announced here; a halt on a paused operation announces itself.
  transition "announce halt" {
    from = [Halted]
    when = "status.?autoPatch.?announced.orValue('') != halted_name"
    do "event" {
      verb   = create
      target = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'namespace': ref(self).namespace, 'name': self.metadata.name + '.autopatchhalted.' + halted_name.replace('/', '.')}"
      body   = "{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'metadata': {'name': self.metadata.name + '.autopatchhalted.' + halted_name.replace('/', '.'), 'namespace': ref(self).namespace}, 'regarding': {'apiVersion': self.apiVersion, 'kind': self.kind, 'namespace': ref(self).namespace, 'name': self.metadata.name}, 'type': 'Warning', 'reason': 'AutoPatchHalted', 'action': 'Halt', 'note': status.?message.orValue(''), 'eventTime': microTime(now), 'reportingController': 'ichor.maesh.dev/auto-patch', 'reportingInstance': 'statecraft'}"
    }
    to      = Halted
    reason  = OperationNotCreated
    message = "status.?message.orValue('')"
    set     = { "autoPatch.announced" = "halted_name" }
    on "event" "*" {
      to      = Halted
      reason  = OperationNotCreated
      message = "status.?message.orValue('')"
      set     = { "autoPatch.announced" = "halted_name" }
    }
  }
  # The acknowledged halt is remembered (status.autoPatch.acknowledged), as
  # long as its operation stays paused.
  transition "halt acknowledged" {
    from    = [Halted]
    when    = "acknowledged == halted_name"
    to      = Active
    reason  = HaltAcknowledged
    message = "'spec.autoPatch.acknowledgedHalt names ' + halted_name"
    set = {
      "autoPatch.haltedOperation" = "null"
      "autoPatch.haltCause"       = "null"
      "autoPatch.haltedCluster"   = "null"
      "autoPatch.haltedSince"     = "null"
      "autoPatch.acknowledged"    = "halted_name in acknowledged_kept || halted_name == '' ? acknowledged_kept : acknowledged_kept + [halted_name]"
    }
  }
  transition "halted operation completed" {
    from    = [Halted]
    when    = "reads_ok && halted_op.exists(o, o.?status.?phase.orValue('') == 'Completed')"
    to      = Active
    reason  = HaltedOperationCompleted
    message = "halted_name + ' completed'"
    set     = { "autoPatch.haltedOperation" = "null", "autoPatch.haltCause" = "null", "autoPatch.haltedCluster" = "null", "autoPatch.haltedSince" = "null" }
  }
  transition "halted operation deleted" {
    from    = [Halted]
    when    = "reads_ok && status.?autoPatch.?haltCause.orValue('') == 'Paused' && size(halted_op) == 0"
    to      = Active
    reason  = HaltedOperationDeleted
    message = "halted_name + ' no longer exists'"
    set     = { "autoPatch.haltedOperation" = "null", "autoPatch.haltCause" = "null", "autoPatch.haltedCluster" = "null", "autoPatch.haltedSince" = "null" }
  }
  transition "manual upgrade completed" {
    from    = [Halted]
    when    = "reads_ok && manual_done.exists(m, m.metadata.namespace + '/' + m.spec.cluster == status.?autoPatch.?haltedCluster.orValue('') && timestamp(m.metadata.creationTimestamp) > timestamp(status.autoPatch.haltedSince))"
    to      = Active
    reason  = ManualUpgradeCompleted
    message = "'a later manual upgrade of ' + status.?autoPatch.?haltedCluster.orValue('') + ' completed'"
    set     = { "autoPatch.haltedOperation" = "null", "autoPatch.haltCause" = "null", "autoPatch.haltedCluster" = "null", "autoPatch.haltedSince" = "null" }
  }

  # ---- Active: why nothing starts (written when it changes). ----

  transition "reads failed" {
    from   = [Active]
    when   = "wait_reason == 'ReadFailed' && status.?reason.orValue('') != 'ReadFailed'"
    to     = Active
    reason = ReadFailed
    set    = { "autoPatch.blocked" = "null" }
  }
  transition "Ichor upgrade in progress" {
    from    = [Active]
    when    = "wait_reason == 'IchorUpgradeInProgress' && status.?reason.orValue('') != 'IchorUpgradeInProgress'"
    to      = Active
    reason  = IchorUpgradeInProgress
    message = "'status.installedVersion ' + self.status.?installedVersion.orValue('(none)') + ' is not spec.version ' + self.spec.?version.orValue('(none)')"
    set     = { "autoPatch.blocked" = "null" }
  }
  transition "outside the window" {
    from    = [Active]
    when    = "wait_reason == 'OutsideWindow' && status.?reason.orValue('') != 'OutsideWindow'"
    to      = Active
    reason  = OutsideWindow
    message = "'now is outside the daily UTC window ' + window"
    set     = { "autoPatch.blocked" = "null" }
  }
  transition "release lists missing" {
    from    = [Active]
    when    = "wait_reason == 'ReleaseListsMissing' && status.?reason.orValue('') != 'ReleaseListsMissing'"
    to      = Active
    reason  = ReleaseListsMissing
    message = "'status.upgradeTargets is empty: the release check is off or has not run'"
    set     = { "autoPatch.blocked" = "null" }
  }
  transition "release lists stale" {
    from    = [Active]
    when    = "wait_reason == 'ReleaseListsStale' && status.?reason.orValue('') != 'ReleaseListsStale'"
    to      = Active
    reason  = ReleaseListsStale
    message = "'the release lists were checked at ' + dyn(targets.value().checkedAt) + ', more than ' + string(param.release_max_age) + ' ago'"
    set     = { "autoPatch.blocked" = "null" }
  }
  transition "no clusters" {
    from   = [Active]
    when   = "wait_reason == 'NoClusters' && status.?reason.orValue('') != 'NoClusters'"
    to     = Active
    reason = NoClusters
    set    = { "autoPatch.blocked" = "null" }
  }

  # Guards 5 to 7 and the candidates, for each cluster: the reason is the
  # first guard that holds some cluster back; status.autoPatch.blocked says
  # it for every cluster.
  transition "operation unfinished" {
    from    = [Active]
    when    = "wait_reason == 'OperationUnfinished' && (status.?reason.orValue('') != 'OperationUnfinished' || status.?autoPatch.?blocked.orValue('') != summary)"
    to      = Active
    reason  = OperationUnfinished
    message = "summary"
    set     = { "autoPatch.blocked" = "summary" }
  }
  transition "cluster locked" {
    from    = [Active]
    when    = "wait_reason == 'ClusterLocked' && (status.?reason.orValue('') != 'ClusterLocked' || status.?autoPatch.?blocked.orValue('') != summary)"
    to      = Active
    reason  = ClusterLocked
    message = "summary"
    set     = { "autoPatch.blocked" = "summary" }
  }
  transition "machines not ready" {
    from    = [Active]
    when    = "wait_reason == 'MachinesNotReady' && (status.?reason.orValue('') != 'MachinesNotReady' || status.?autoPatch.?blocked.orValue('') != summary)"
    to      = Active
    reason  = MachinesNotReady
    message = "summary"
    set     = { "autoPatch.blocked" = "summary" }
  }
  transition "recently started" {
    from    = [Active]
    when    = "wait_reason == 'RecentlyStarted' && (status.?reason.orValue('') != 'RecentlyStarted' || status.?autoPatch.?blocked.orValue('') != summary)"
    to      = Active
    reason  = RecentlyStarted
    message = "summary"
    set     = { "autoPatch.blocked" = "summary" }
  }
  transition "machines held" {
    from    = [Active]
    when    = "wait_reason == 'MachinesHeld' && (status.?reason.orValue('') != 'MachinesHeld' || status.?autoPatch.?blocked.orValue('') != summary)"
    to      = Active
    reason  = MachinesHeld
    message = "summary"
    set     = { "autoPatch.blocked" = "summary" }
  }
  transition "up to date" {
    from    = [Active]
    when    = "wait_reason == 'NoCandidate' && (status.?reason.orValue('') != 'NoCandidate' || status.?autoPatch.?blocked.orValue('') != summary)"
    to      = Active
    reason  = NoCandidate
    message = "summary"
    set     = { "autoPatch.blocked" = "summary" }
  }

  # ---- A start: dry-run the operation, write the version (compare-and-set
  # through the resourceVersion just read), create the operation, both as
  # ichor-auto-patch; then the Normal Event AutoPatchStarted. ----

  transition "start patch" {
    from = [Active]
    when = "wait_reason == ''"
    do "dry_run" {
      verb     = create
      target   = "ref(op_body)"
      body     = "op_body"
      dry_run  = true
      identity = "identity"
    }
    do "version" {
      verb     = update
      target   = "ref(next.cluster)"
      body     = "patch.merge(next.cluster, {'spec': {next.field: next.to}, 'status': null})"
      identity = "identity"
      expect   = "result.spec[next.field] == next.to"
    }
    do "create" {
      verb     = create
      target   = "ref(op_body)"
      body     = "op_body"
      identity = "identity"
    }
    do "event" {
      verb   = create
      target = "ref(started_event)"
      body   = "started_event"
    }
    to      = Active
    reason  = AutoPatchStarted
    message = "next.key + ': ' + next.component + ' ' + next.from + ' → ' + next.to + ' by ' + next.namespace + '/' + op_name"
    set = {
      "autoPatch.lastOperation" = "next.namespace + '/' + op_name"
      "autoPatch.started"       = "patch.merge(started_record, {next.key: string(now)})"
      "autoPatch.blocked"       = "null"
    }

    on "event" "*" {
      to      = Active
      reason  = AutoPatchStarted
      message = "next.key + ': ' + next.component + ' ' + next.from + ' → ' + next.to + ' by ' + next.namespace + '/' + op_name"
      set = {
        "autoPatch.lastOperation" = "next.namespace + '/' + op_name"
        "autoPatch.started"       = "patch.merge(started_record, {next.key: string(now)})"
        "autoPatch.blocked"       = "null"
      }
    }
    # Nothing was written: try again at the next tick.
    on "dry_run" "*" {
      set    = {} # not the transition's
      to     = Active
      reason = StartRefused
      after  = "param.tick"
    }
    # Someone changed the cluster since it was read: nothing is overwritten
    # and nothing created; the next tick decides again.
    on "version" "conflict" {
      set    = {} # not the transition's
      to     = Active
      reason = VersionChanged
      after  = "param.tick"
    }
    on "version" "*" {
      set    = {} # not the transition's
      to     = Active
      reason = VersionNotWritten
      after  = "param.tick"
    }
    # The version is written, the operation is not: try again, then halt.
    on "create" "*" {
      to     = Creating
      reason = OperationNotCreated
      set = {
        "autoPatch.pending" = "{'operation': op_body, 'cluster': next.key, 'tries': 1}"
        "autoPatch.started" = "patch.merge(started_record, {next.key: string(now)})"
      }
      after = "param.create_retry_delay"
    }
  }

  transition "create operation again" {
    from = [Creating]
    do "create" {
      verb     = create
      target   = "ref(pending.operation)"
      body     = "pending.operation"
      identity = "identity"
    }
    to      = Active
    reason  = AutoPatchStarted
    message = "pending.operation.metadata.namespace + '/' + pending.operation.metadata.name + ' created at try ' + string(pending_tries + 1)"
    set = {
      "autoPatch.lastOperation" = "pending.operation.metadata.namespace + '/' + pending.operation.metadata.name"
      "autoPatch.pending"       = "null"
    }

    on "create" "*" {
      when    = "pending_tries + 1 >= param.create_tries"
      to      = Halted
      reason  = OperationNotCreated
      message = "'the version of ' + pending.cluster + ' was written but ' + pending.operation.metadata.namespace + '/' + pending.operation.metadata.name + ' could not be created in ' + string(pending_tries + 1) + ' tries: ' + last.message"
      set = {
        "autoPatch.haltedOperation" = "pending.operation.metadata.namespace + '/' + pending.operation.metadata.name"
        "autoPatch.haltCause"       = "'OperationNotCreated'"
        "autoPatch.haltedCluster"   = "pending.cluster"
        "autoPatch.haltedSince"     = "string(now)"
        "autoPatch.announced"       = "null"
        "autoPatch.pending"         = "null"
      }
    }
    on "create" "*" {
      to     = Creating
      reason = OperationNotCreated
      set    = { "autoPatch.pending" = "patch.merge(pending, {'tries': pending_tries + 1})" }
      after  = "param.create_retry_delay"
    }
  }

  # ---- statecraft verify: findings the rules mean to have. ----

  accept "halts need a failed operation" {
    finding = unreached
    states  = [Creating, Halted]
    because = "Creating follows a failed create of an operation and Halted a failed or paused automatic one; verify fails no request of the first reconcile, where the shipped starting objects make their only start, and has no executor to fail an operation (autopatch/half-start, halt-acknowledge, halt-ends and two-halts show both states)"
  }
  accept "waits for what only the world ends" {
    finding = stuck
    states  = [Active]
    reasons = [OutsideWindow, OperationUnfinished, IchorUpgradeInProgress]
    because = "guards the seed gives: no start outside the maintenance window (a time of day, which verify's time abstraction of past, now and future does not reach), while a cluster's operation runs (only the executor ends it) or while Ichor itself upgrades (only its operator writes status.installedVersion); autopatch/window-wrap, starts and guard-operations show each guard lift"
  }
}
