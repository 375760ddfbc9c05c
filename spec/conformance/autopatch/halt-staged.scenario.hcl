# AP-49 AP-58 AP-66 AP-67: which paused automatic operations halt, and what
# ends the halt. The patcher starts with two automatic operations Paused:
# edge's, which spec.autoPatch.acknowledgedHalt already names, and prod's.
# The acknowledged one never halts (no Warning Event names it, it is not
# recorded as an acknowledged halt); prod's halts at once. At 1m an
# operation of prod of kind cni that carries the automatic annotation
# completes at 1m30s: only an operation the patcher did not start ends a
# halt (seed 004, section 5), so the halt on prod's operation stays.
scenario "halts: an acknowledgement written before, a later automatic operation" {
  rules   = ["executor.hcl"]
  run_for = "5m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-acknowledged.yaml", "fleet-staged-halts.yaml"]

  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "1m" {
    create = ["prod-automatic-cni.yaml"]
  }

  expect "0s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    reason = "AutoPatchHalted"
    fields = {
      "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-talos-v1-10-5"
      "status.autoPatch.acknowledged"    = null
    }
  }
  expect "0s" {
    object = "Event/ichor-system/ichor.autopatchhalted.fleet.edge-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "2m" {
    object = "TalosOperation/fleet/prod-cni-copy"
    fields = { "status.phase" = "Completed" }
  }
  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    reason = "AutoPatchHalted"
    fields = {
      "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-talos-v1-10-5"
      "status.autoPatch.acknowledged"    = null
    }
  }
  expect "5m" {
    writes {
      verb  = "create"
      kind  = "Event"
      count = 1
    }
  }
}
