# AP-84: a cluster opts out by keeping the hold annotation
# (ichor.maesh.dev/hold: "true", ADR 0043) on every approved machine, and the
# executors honour it.
#
# prod's approved machines are all held: the patcher leaves it alone
# (MachinesHeld: no version written, no operation), while edge, where only
# worker-1 is held, is patched; the executor runs edge's operation without
# worker-1 (status.skippedMachines). alice upgrades prod by hand at 2m: the
# executor keeps her operation Pending (MachinesHeld) while every machine is
# held. The holds are lifted at 12m: her operation runs at the executor's
# next look, completes, and prod is no longer opted out: the patcher starts
# prod's next patch.
scenario "hold annotation: a cluster opts out, the executor honours it" {
  rules   = ["executor.hcl"]
  run_for = "30m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-hold.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "2m" {
    as = "alice"
    patch "TalosCluster/fleet/prod" {
      merge = { spec = { talosVersion = "v1.10.3" } }
    }
    create = ["prod-manual-talos.yaml"]
  }
  at "12m" {
    as = "ichor-cluster-controller"
    patch "TalosCluster/fleet/prod" {
      status = { machines = [{ name = "cp-1", approved = true, ready = true }, { name = "worker-1", approved = true, ready = true }, { name = "spare-1", approved = false, ready = false }] }
    }
  }

  # edge is patched, prod is not.
  expect "0s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = {
      "status.autoPatch.lastOperation" = "fleet/edge-autopatch-talos-v1-10-5"
      "status.autoPatch.blocked"       = "fleet/edge OperationUnfinished, fleet/prod MachinesHeld"
    }
  }
  expect "0s" {
    object = "TalosOperation/fleet/edge-autopatch-talos-v1-10-5"
    state  = "Running"
    fields = {
      "status.targetVersion"     = "v1.10.5"
      "status.skippedMachines.0" = "worker-1"
    }
  }
  expect "0s" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    absent = true
  }
  # A person's operation on the held cluster waits.
  expect "11m" {
    object = "TalosOperation/fleet/prod-manual-talos"
    state  = "Pending"
    reason = "MachinesHeld"
    fields = {
      "status.message"   = "every approved machine of prod carries ichor.maesh.dev/hold: cp-1, worker-1"
      "status.startTime" = null
    }
  }
  # edge is done; prod, opted out, is all that is left.
  expect "11m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "MachinesHeld"
    fields = {
      "status.autoPatch.blocked" = "fleet/edge NoCandidate, fleet/prod MachinesHeld"
    }
  }
  expect "11m" {
    object = "TalosCluster/fleet/prod"
    fields = {
      "spec.talosVersion" = "v1.10.3"
    }
  }
  expect "11m" {
    writes {
      verb     = "update"
      kind     = "TalosCluster"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      count    = 1
    }
    writes {
      verb     = "create"
      kind     = "TalosOperation"
      dry_run  = false
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      count    = 1
    }
  }
  # The holds are lifted: alice's operation runs, to the spec's v1.10.3.
  expect "13m" {
    object = "TalosOperation/fleet/prod-manual-talos"
    state  = "Running"
    fields = {
      "status.targetVersion"   = "v1.10.3"
      "status.skippedMachines" = null
    }
  }
  expect "13m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "OperationUnfinished"
    fields = {
      "status.autoPatch.blocked" = "fleet/edge NoCandidate, fleet/prod OperationUnfinished"
    }
  }
  # Then the patcher takes prod's next patch.
  expect "30m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = {
      "metadata.annotations.ichor\\.maesh\\.dev/from-version" = "v1.10.3"
      "status.targetVersion"                                  = "v1.10.5"
    }
  }
}
