# Automatic patch upgrades (seed 004, ADR 0116 and its amendment): each
# minute, at most one upgrade TalosOperation per TalosCluster, for the newest
# final patch of the running minor of Talos, then Kubernetes, from the
# release check's lists and the compatibility table, inside the daily UTC
# window while the seven guards hold; a paused automatic operation halts it
# until acknowledged or cleared; no retries. It binds the IchorInstallation,
# which holds the setting, the halt and the release lists ("the halt state
# is global", section 4). The version and the operation are written as the
# ServiceAccount ichor-auto-patch, never by the controller (section 6).
machine "autopatch" {
  description      = "Start automatic patch upgrades of Talos and Kubernetes, one per cluster, inside a daily window; halt on a paused automatic operation."
  max_steps        = 64
  event_controller = "ichor.maesh.dev/auto-patch"

  resource "ichor.maesh.dev/v1alpha1" "IchorInstallation" {
    scope  = Namespaced
    schema = "crd:ichor.maesh.dev_ichorinstallations.yaml"
  }

  # ---- The controller flags (the chart's autoPatch values), which
  # spec.autoPatch overrides field by field (section 1): components
  # comma-separated, the window HH:MM-HH:MM UTC; read-only ignores
  # spec.autoPatch but its acknowledgedHalt. ----
  param "auto_patch" {
    default = false
  }
  param "auto_patch_components" {
    default = ""
    valid   = "value.split(',').map(c, c.trim()).filter(c, c != '').all(c, c in ['talos', 'cilium', 'kubernetes'])"
  }
  param "auto_patch_window" {
    default = ""
    valid   = "value == '' || upgrade.validWindow(value)"
  }
  param "settings_read_only" {
    default = false
  }
  param "controller_namespace" {
    default = "ichor-system"
    valid   = "value != ''"
  }

  # ---- The seed's constants: the tick, jittered by up to a tenth (fixed per
  # installation and tick); guard 4's stale age (the check runs every six
  # hours); guard 7's time after a start; the creation tries (section 4). ----
  param "tick" {
    type    = duration
    default = "1m"
    valid   = "value > duration('0s')"
  }
  param "tick_jitter" {
    type    = duration
    default = "6s"
  }
  param "release_max_age" {
    type    = duration
    default = "48h"
    valid   = "value > duration('0s')"
  }
  param "start_guard" {
    type    = duration
    default = "2m"
  }
  param "create_tries" {
    default = 3
    valid   = "value >= 1"
  }
  param "create_retry_delay" {
    type    = duration
    default = "10s"
    valid   = "value > duration('0s')"
  }

  # ---- Settings: unset components fall back to the flag, an empty list is
  # all three; an unset or empty window to the flag's; '' is any time. ----
  let "enabled" { value = "param.settings_read_only ? param.auto_patch : self.spec.?autoPatch.?enabled.orValue(param.auto_patch)" }
  let "all_components" { value = "['talos', 'cilium', 'kubernetes']" }
  let "flag_components" { value = "param.auto_patch_components.split(',').map(c, c.trim()).filter(c, c != '')" }
  let "components_set" { value = "!param.settings_read_only && has(self.spec.autoPatch) && has(self.spec.autoPatch.components) ? self.spec.autoPatch.components : flag_components" }
  let "components" { value = "size(components_set) == 0 ? all_components : components_set" }
  let "window" { value = "!param.settings_read_only && self.spec.?autoPatch.?window.orValue('') != '' ? self.spec.autoPatch.window : param.auto_patch_window" }
  let "acknowledged" { value = "self.spec.?autoPatch.?acknowledgedHalt.orValue('')" }
  let "effective" { value = "{'autoPatch': enabled, 'autoPatchComponents': components, 'autoPatchWindow': window}" }
  # The CRD refuses these; one that still arrives is reported, nothing starts.
  let "settings_error" { value = "window != '' && !upgrade.validWindow(window) ? 'spec.autoPatch.window ' + window + ' is not a daily UTC window HH:MM-HH:MM' : components.exists(c, !(c in all_components)) ? 'spec.autoPatch.components holds an unknown component: ' + components.filter(c, !(c in all_components)).join(', ') : ''" }

  # ---- A tick reads only the installation while Off (off, or its settings
  # invalid; no transition of Off reads more); the locks of ADR 0043 are
  # Leases labelled with their cluster's name. ----
  let "reading" { value = "status.?state.orValue('Off') != 'Off'" }
  observe "clusters" {
    when = "reading"
    list = "{'apiVersion': 'ichor.maesh.dev/v1alpha1', 'kind': 'TalosCluster', 'namespace': ''}"
  }
  observe "operations" {
    when = "reading"
    list = "{'apiVersion': 'ichor.maesh.dev/v1alpha1', 'kind': 'TalosOperation', 'namespace': ''}"
  }
  observe "locks" {
    when = "reading"
    list = "{'apiVersion': 'coordination.k8s.io/v1', 'kind': 'Lease', 'namespace': '', 'labelSelector': 'ichor.maesh.dev/cluster'}"
  }
  let "reads_ok" { value = "clusters.outcome == 'ok' && operations.outcome == 'ok' && locks.outcome == 'ok'" }

  function "key(o)" { value = "o.metadata.namespace + '/' + o.metadata.name" }
  function "cluster_of(o)" { value = "o.metadata.namespace + '/' + o.spec.cluster" }
  let "auto_ops" { value = "operations.items.filter(o, o.metadata.?annotations[?'ichor.maesh.dev/auto-patch'].orValue('') == 'true')" }
  let "manual_done" { value = "operations.items.filter(o, o.metadata.?annotations[?'ichor.maesh.dev/auto-patch'].orValue('') != 'true' && o.spec.type in ['talos', 'kubernetes', 'cni'] && o.?status.?phase.orValue('') == 'Completed')" }
  # An acknowledgement ends a halt for good (section 5: a later halt names
  # another operation): each acknowledged halt is remembered while its
  # operation stays paused, as two can be paused at once on two clusters.
  let "acknowledged_before" { value = "status.?autoPatch.?acknowledged.orValue([])" }
  let "acknowledged_kept" { value = "acknowledged_before.filter(n, auto_ops.exists(o, key(o) == n && o.?status.?phase.orValue('') == 'Paused'))" }
  # Section 5: an automatic operation in Paused (a failed step or a pause)
  # halts, unless acknowledged or followed by a manual upgrade that completed.
  let "halting" { value = "auto_ops.filter(o, o.?status.?phase.orValue('') == 'Paused' && key(o) != acknowledged && !(key(o) in acknowledged_before) && !manual_done.exists(m, cluster_of(m) == cluster_of(o) && timestamp(m.metadata.creationTimestamp) > timestamp(o.metadata.creationTimestamp)))" }
  let "halted_name" { value = "status.?autoPatch.?haltedOperation.orValue('')" }
  let "halted_op" { value = "operations.items.filter(o, key(o) == halted_name)" }
  # A halt ends when the acknowledgement names it, its operation completed
  # (resumed) or is gone, or a later manual upgrade of its cluster completed.
  let "halt_end" {
    value = <<-CEL
      acknowledged == halted_name ? 'HaltAcknowledged' : !reads_ok ? '' :
      halted_op.exists(o, o.?status.?phase.orValue('') == 'Completed') ? 'HaltedOperationCompleted' :
      status.?autoPatch.?haltCause.orValue('') == 'Paused' && size(halted_op) == 0 ? 'HaltedOperationDeleted' :
      manual_done.exists(m, cluster_of(m) == status.?autoPatch.?haltedCluster.orValue('') && timestamp(m.metadata.creationTimestamp) > timestamp(status.autoPatch.haltedSince)) ? 'ManualUpgradeCompleted' : ''
    CEL
  }

  # ---- Guards 2, 3, 4 (section 3), in order: the first closed, or ''. ----
  let "targets" { value = "self.status.?upgradeTargets" }
  let "gate" {
    value = <<-CEL
      !reads_ok ? {'reason': 'ReadFailed', 'message': cel.bind(failed, [['TalosClusters', clusters], ['TalosOperations', operations], ['Leases', locks]].filter(l, l[1].outcome != 'ok')[0], 'the list of ' + failed[0] + ' failed (' + failed[1].outcome + '): ' + failed[1].message)} :
      self.status.?installedVersion.orValue('') != self.spec.?version.orValue('') ? {'reason': 'IchorUpgradeInProgress', 'message': 'status.installedVersion ' + self.status.?installedVersion.orValue('(none)') + ' is not spec.version ' + self.spec.?version.orValue('(none)')} :
      window != '' && !upgrade.inWindow(window, now) ? {'reason': 'OutsideWindow', 'message': 'now is outside the daily UTC window ' + window} :
      !targets.hasValue() || !has(targets.value().checkedAt) ? {'reason': 'ReleaseListsMissing', 'message': 'status.upgradeTargets is empty: the release check is off or has not run'} :
      now - timestamp(dyn(targets.value().checkedAt)) >= param.release_max_age ? {'reason': 'ReleaseListsStale', 'message': 'the release lists were checked at ' + string(dyn(targets.value().checkedAt)) + ', more than ' + string(param.release_max_age) + ' ago'} :
      {'reason': '', 'message': ''}
    CEL
  }

  # ---- The candidate (section 2): the newest patch step (same minor, newer,
  # final) listed by the release check and allowed by the table of ADR 0115,
  # whose rows {talos, kubernetes: [...], cilium: [...]} match by minor. ----
  function "compatible(talos, kubernetes, cilium)" {
    value = <<-CEL
      targets.hasValue() && targets.value().?compatibility.orValue([]).exists(r,
        upgrade.minor(talos) != '' && upgrade.minor(r.?talos.orValue('')) == upgrade.minor(talos) &&
        upgrade.minor(kubernetes) != '' && r.?kubernetes.orValue([]).exists(k, upgrade.minor(k) == upgrade.minor(kubernetes)) &&
        (cilium == '' || upgrade.minor(cilium) != '' && r.?cilium.orValue([]).exists(k, upgrade.minor(k) == upgrade.minor(cilium))))
    CEL
  }
  # The newest of a list of versions (the first listed of equals); '' for none.
  function "newest(vs)" { value = "(vs.filter(v, vs.all(w, upgrade.compare(w, v) <= 0)) + [''])[0]" }
  # Kubernetes needs the running Cilium known; Cilium has none (amendment).
  let "candidates" {
    value = <<-CEL
      clusters.items.map(c, {
        'cluster': c,
        'approved': c.?status.?machines.orValue([]).filter(m, m.?approved.orValue(false)),
        'talos': 'talos' in components && targets.hasValue() ? newest(targets.value().?talos.orValue([]).filter(v, upgrade.isPatchStep(c.spec.talosVersion, v) && compatible(v, c.spec.kubernetesVersion, ''))) : '',
        'kubernetes': 'kubernetes' in components && targets.hasValue() && c.?status.?ciliumVersion.orValue('') != '' ? newest(targets.value().?kubernetes.orValue([]).filter(v, upgrade.isPatchStep(c.spec.kubernetesVersion, v) && compatible(c.spec.talosVersion, v, c.status.ciliumVersion))) : ''
      })
    CEL
  }

  # ---- Guards 5, 6, 7 per cluster. 5: an unfinished operation (a shutdown
  # resting in ShutDown is finished), or the Lease held: a holder named and
  # not run out (one that says no end holds until released). ----
  let "busy" { value = "operations.items.filter(o, o.?status.?phase.orValue('Pending') in ['Pending', 'Running', 'Paused']).map(o, cluster_of(o))" }
  let "locked" { value = "locks.items.filter(l, l.?spec.?holderIdentity.orValue('') != '' && upgrade.leaseExpiry(l).optMap(t, t > now).orValue(true)).map(l, l.metadata.namespace + '/' + l.metadata.labels['ichor.maesh.dev/cluster'])" }
  # 7: a recent start, listed or in the patcher's own record (lagging reads).
  let "started_record" { value = "status.?autoPatch.?started.orValue({})" }
  let "recent" { value = "auto_ops.filter(o, now - timestamp(o.metadata.creationTimestamp) < param.start_guard).map(o, cluster_of(o)) + started_record.filter(k, now - timestamp(started_record[k]) < param.start_guard)" }
  # One component per decision, Talos first; block is the first guard that
  # holds the cluster back. 6: approved machines, all Ready (not pending a
  # configuration). A hold (ADR 0043) on each approved machine opts out.
  let "views" {
    value = <<-CEL
      candidates.map(x, cel.bind(component, x.talos != '' ? 'talos' : 'kubernetes', {
        'key': key(x.cluster), 'namespace': x.cluster.metadata.namespace, 'name': x.cluster.metadata.name, 'component': component,
        'field': component + 'Version', 'from': x.cluster.spec[component + 'Version'], 'to': x.talos != '' ? x.talos : x.kubernetes,
        'block':
          size(x.approved) > 0 && x.approved.all(m, m.?annotations[?'ichor.maesh.dev/hold'].orValue('') == 'true') ? 'MachinesHeld' :
          key(x.cluster) in busy ? 'OperationUnfinished' :
          key(x.cluster) in locked ? 'ClusterLocked' :
          !(size(x.approved) > 0 && x.approved.all(m, m.?ready.orValue(false) && !m.?configPending.orValue(false))) ? 'MachinesNotReady' :
          key(x.cluster) in recent ? 'RecentlyStarted' :
          x.talos == '' && x.kubernetes == '' ? 'NoCandidate' : ''
      }))
    CEL
  }
  let "summary" { value = "views.map(v, v.key + ' ' + (v.block == '' ? 'eligible' : v.block)).join(', ')" }
  # Why nothing starts: the gate, else the first guard holding some cluster.
  let "wait_reason" {
    value = <<-CEL
      gate.reason != '' ? gate.reason : size(views) == 0 ? 'NoClusters' : views.exists(v, v.block == '') ? '' :
      ['OperationUnfinished', 'ClusterLocked', 'MachinesNotReady', 'RecentlyStarted', 'MachinesHeld', 'NoCandidate'].filter(r, views.exists(v, v.block == r))[0]
    CEL
  }

  # ---- The first eligible cluster's start; annotations are the audit trail. ----
  let "next" { value = "views.filter(v, v.block == '')[0]" }
  let "identity" { value = "'system:serviceaccount:' + param.controller_namespace + ':ichor-auto-patch'" }
  # Never a name a halt or an acknowledgement used (section 5: a later halt
  # names another operation, so an old acknowledgement does not clear it):
  # the same patch decided again, its earlier operation deleted, gets the
  # start's time (Unix seconds) as a suffix.
  let "op_base" { value = "next.name + '-autopatch-' + next.component + '-' + next.to.lowerAscii().replace('.', '-').replace('+', '-')" }
  let "names_used" { value = "[acknowledged, status.?autoPatch.?announced.orValue('')] + acknowledged_before" }
  let "op_name" { value = "next.namespace + '/' + op_base in names_used ? op_base + '-' + string(int(now)) : op_base" }
  let "op_body" {
    value = <<-CEL
      {'apiVersion': 'ichor.maesh.dev/v1alpha1', 'kind': 'TalosOperation', 'spec': {'cluster': next.name, 'type': next.component, 'targetVersion': next.to},
       'metadata': {'name': op_name, 'namespace': next.namespace, 'labels': {'ichor.maesh.dev/cluster': next.name}, 'annotations': {'ichor.maesh.dev/auto-patch': 'true', 'ichor.maesh.dev/started-by': 'ichor-auto-patch', 'ichor.maesh.dev/from-version': next.from}}}
    CEL
  }
  # A start decided and recorded, not finished (state Starting).
  let "starting" { value = "status.?autoPatch.?starting.orValue({})" }
  let "starting_cluster" { value = "clusters.items.filter(c, key(c) == starting.?cluster.orValue(''))" }
  let "starting_version" { value = "size(starting_cluster) > 0 ? starting_cluster[0].spec[?starting.field].orValue('') : ''" }
  let "starting_busy" { value = "operations.items.filter(o, o.?status.?phase.orValue('Pending') in ['Pending', 'Running', 'Paused'] && cluster_of(o) == starting.?cluster.orValue('') && key(o) != key(starting.operation))" }
  let "starting_tries" { value = "int(starting.?tries.orValue(0))" }
  # Guard 7's record of the start: from its first try of the create on.
  let "started_now" { value = "starting_tries == 0 ? patch.merge(started_record, {starting.cluster: string(now)}) : started_record" }

  # ---- States. Active holds no halt: entering it clears the last one. ----
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
    set        = { "autoPatch.haltedOperation" = "null", "autoPatch.haltCause" = "null", "autoPatch.haltedCluster" = "null", "autoPatch.haltedSince" = "null" }
  }
  state "Starting" {
    conditions = { AutoPatchHalted = False }
    recheck    = "param.create_retry_delay"
  }
  state "Halted" {
    outcome    = Failure
    conditions = { AutoPatchHalted = True }
    recheck    = "param.tick"
    jitter     = "param.tick_jitter"
  }

  # ---- status.effective, and a SettingsChanged Event when it changes
  # (not at the first report); the reason and message stay. ----
  transition "report settings" {
    from = [Off, Active, Halted]
    when = "status.?effective.orValue({}) != effective"
    do "event" {
      verb    = event
      when    = "has(status.effective)"
      reason  = SettingsChanged
      action  = Configure
      message = "'auto-patch: ' + string(enabled) + ', components: ' + components.join(',') + ', window: ' + (window == '' ? 'any time' : window)"
      name    = "self.metadata.name + '.settingschanged.' + string(int(now))"
    }
    set = { effective = "effective" }
  }

  # ---- Guard 1: the setting is on (and valid), and not halted. ----
  transition "invalid settings" {
    from    = [Off, Active]
    when    = "settings_error != ''"
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
  # A halt stops every cluster; condition, record (section 5), and one
  # Warning Event per halted operation, also for a start that halts.
  transition "halt" {
    from    = [Active]
    when    = "size(halting) > 0"
    to      = Halted
    reason  = AutoPatchHalted
    message = "'automatic operation ' + key(halting[0]) + ' is paused: ' + halting[0].?status.?failureReason.orValue(halting[0].?status.?reason.orValue('paused'))"
    set = {
      "autoPatch.haltedOperation" = "key(halting[0])"
      "autoPatch.haltCause"       = "'Paused'"
      "autoPatch.haltedCluster"   = "cluster_of(halting[0])"
      "autoPatch.haltedSince"     = "halting[0].metadata.creationTimestamp"
      "autoPatch.blocked"         = "null"
    }
  }
  transition "announce halt" {
    from = [Halted]
    when = "status.?autoPatch.?announced.orValue('') != halted_name"
    do "event" {
      verb    = event
      type    = Warning
      reason  = AutoPatchHalted
      action  = Halt
      message = "status.?message.orValue('')"
      name    = "self.metadata.name + '.autopatchhalted.' + halted_name.replace('/', '.')"
      related = "size(halted_op) > 0 ? dyn(ref(halted_op[0])) : dyn(null)"
    }
    set = { "autoPatch.announced" = "halted_name" }
  }
  transition "halt ends" {
    from    = [Halted]
    when    = "halt_end != ''"
    to      = Active
    reason  = "halt_end"
    reasons = [HaltAcknowledged, HaltedOperationCompleted, HaltedOperationDeleted, ManualUpgradeCompleted]
    message = "{'HaltAcknowledged': 'spec.autoPatch.acknowledgedHalt names ' + halted_name, 'HaltedOperationCompleted': halted_name + ' completed', 'HaltedOperationDeleted': halted_name + ' no longer exists', 'ManualUpgradeCompleted': 'a later manual upgrade of ' + status.?autoPatch.?haltedCluster.orValue('') + ' completed'}[halt_end]"
    set     = { "autoPatch.acknowledged" = "halt_end != 'HaltAcknowledged' ? acknowledged_before : halted_name in acknowledged_kept || halted_name == '' ? acknowledged_kept : acknowledged_kept + [halted_name]" }
  }

  # ---- Why nothing starts, when it changes; autoPatch.blocked per cluster. ----
  transition "nothing starts" {
    from    = [Active]
    when    = "wait_reason != ''"
    reason  = "wait_reason"
    reasons = [ReadFailed, IchorUpgradeInProgress, OutsideWindow, ReleaseListsMissing, ReleaseListsStale, NoClusters, OperationUnfinished, ClusterLocked, MachinesNotReady, RecentlyStarted, MachinesHeld, NoCandidate]
    message = "gate.reason != '' ? gate.message : summary"
    set     = { "autoPatch.blocked" = "gate.reason == '' && size(views) > 0 ? dyn(summary) : null" }
  }

  # ---- A start (section 4), in two reconciles: the dry-run and the start
  # recorded in status, so that an engine stopped after writing the version
  # finds the start it decided and finishes it (seed 004: the patcher "does
  # not leave the half-start unseen"); then, as ichor-auto-patch, the version
  # written (compare-and-set by resourceVersion), the operation created. ----
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
    to      = Starting
    reason  = StartDecided
    message = "next.key + ': ' + next.component + ' ' + next.from + ' → ' + next.to + ' by ' + next.namespace + '/' + op_name + ' decided'"
    set     = { "autoPatch.starting" = "{'operation': op_body, 'cluster': next.key, 'component': next.component, 'field': next.field, 'from': next.from, 'to': next.to}", "autoPatch.blocked" = "null" }
    after   = "duration('0s')"
    # Nothing written: the next tick.
    on "dry_run" "*" {
      to     = Active
      reason = StartRefused
      set    = {}
      after  = "param.tick"
    }
  }
  # The cluster changed since the start was decided (its version set by
  # someone else, another operation of it unfinished, gone): given up.
  transition "start abandoned" {
    from    = [Starting]
    when    = "reads_ok && (size(starting_cluster) == 0 || !(starting_version in [starting.from, starting.to]) || size(starting_busy) > 0)"
    to      = Active
    reason  = VersionChanged
    message = "starting.cluster + ' changed since the start of ' + key(starting.operation) + ' was decided: ' + (starting_tries == 0 ? 'nothing is written' : 'the operation is not created')"
    set     = { "autoPatch.starting" = "null" }
  }
  transition "write version" {
    from = [Starting]
    when = "reads_ok"
    # Written once: not again after a failed create, or by an engine that
    # stopped after writing it.
    do "version" {
      verb     = update
      when     = "starting_version == starting.from"
      target   = "ref(starting_cluster[0])"
      body     = "patch.merge(starting_cluster[0], {'spec': {starting.field: starting.to}, 'status': null})"
      identity = "identity"
      expect   = "result.spec[starting.field] == starting.to"
    }
    do "create" {
      verb     = create
      target   = "ref(starting.operation)"
      body     = "starting.operation"
      identity = "identity"
    }
    do "event" {
      verb      = event
      reason    = AutoPatchStarted
      action    = Upgrade
      message   = "'automatic patch of ' + starting.component + ' from ' + starting.from + ' to ' + starting.to + ': ' + key(starting.operation)"
      name      = "starting.operation.metadata.name + '.autopatchstarted'"
      regarding = "ref(starting_cluster[0])"
      related   = "ref(starting.operation)"
    }
    to      = Active
    reason  = AutoPatchStarted
    message = "starting.cluster + ': ' + starting.component + ' ' + starting.from + ' → ' + starting.to + ' by ' + key(starting.operation) + (starting_tries == 0 ? '' : ' (created at try ' + string(starting_tries + 1) + ')')"
    set     = { "autoPatch.lastOperation" = "key(starting.operation)", "autoPatch.started" = "started_now", "autoPatch.starting" = "null" }
    # The operation exists: created by an engine that stopped after it.
    on "create" "conflict" {
      message = "starting.cluster + ': ' + key(starting.operation) + ' exists'"
    }
    # The version is written, the operation is not: try again, then halt.
    on "create" "*" {
      when    = "starting_tries + 1 >= param.create_tries"
      to      = Halted
      reason  = OperationNotCreated
      message = "'the version of ' + starting.cluster + ' was written but ' + key(starting.operation) + ' could not be created in ' + (starting_tries == 0 ? 'one try' : string(starting_tries + 1) + ' tries') + ': ' + last.message"
      set = {
        "autoPatch.haltedOperation" = "key(starting.operation)"
        "autoPatch.haltCause"       = "'OperationNotCreated'"
        "autoPatch.haltedCluster"   = "starting.cluster"
        "autoPatch.haltedSince"     = "string(now)"
        "autoPatch.started"         = "started_now"
        "autoPatch.starting"        = "null"
      }
    }
    on "create" "*" {
      to     = Starting
      reason = OperationNotCreated
      set    = { "autoPatch.starting" = "patch.merge(starting, {'tries': starting_tries + 1})", "autoPatch.started" = "started_now" }
      after  = "param.create_retry_delay"
    }
    # Nothing written (a person's edit is never overwritten): the next tick.
    on "version" "*" {
      reason  = "last.outcome == 'conflict' ? 'VersionChanged' : 'VersionNotWritten'"
      reasons = [VersionChanged, VersionNotWritten]
      set     = { "autoPatch.starting" = "null" }
      after   = "param.tick"
    }
  }

  accept "starts need the window" {
    finding = unreached
    states  = [Starting, Halted]
    because = "the shipped starting objects (examples/autopatch/week) begin outside the maintenance window, a time of day verify's time abstraction of past, now and future does not reach, so no start is decided; Halted needs a failed create or a paused operation, and verify has no executor to pause one (autopatch/starts, half-start, halt-acknowledge, halt-ends and two-halts show each state)"
  }
  accept "waits for what only the world ends" {
    finding = stuck
    states  = [Active]
    reasons = [OutsideWindow, OperationUnfinished, IchorUpgradeInProgress]
    because = "guards the seed gives: no start outside the maintenance window (a time of day, which verify's time abstraction of past, now and future does not reach), while a cluster's operation runs (only the executor ends it) or while Ichor itself upgrades (only its operator writes status.installedVersion); autopatch/window-wrap, starts and guard-operations show each guard lift"
  }
}
