# AP-38 AP-65: a halted patcher watches for the end of its halt while the
# setting is off (the seed: the tick returns after reading the settings
# only while off and nothing is halted). prod's automatic Talos operation
# fails at 2m: halted at the 3m tick. alice turns automatic patching off at
# 4m: still halted. She deletes the operation at 5m30s: the 6m tick ends the
# halt and, the setting being off, the patcher is Off.
scenario "a halt ends while the setting is off" {
  rules   = ["executor.hcl"]
  run_for = "8m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "prod.yaml"]

  # Ticks on the minute (see tick-jitter).
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "2m" {
    patch "TalosOperation/fleet/prod-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "upgrade of cp-1 timed out" } } }
    }
  }
  at "4m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { enabled = false } } }
    }
  }
  at "5m30s" {
    as     = "alice"
    delete = ["TalosOperation/fleet/prod-autopatch-talos-v1-10-5"]
  }

  expect "3m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = { "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-talos-v1-10-5" }
  }
  expect "5m59s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = {
      "status.effective.autoPatch"                = false
      "status.conditions[AutoPatchHalted].status" = "True"
    }
  }
  expect "6m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Off"
    reason = "Disabled"
    fields = {
      "status.autoPatch.haltedOperation"          = null
      "status.conditions[AutoPatchHalted].status" = "False"
    }
  }
  expect "8m" {
    writes {
      verb     = "create"
      kind     = "TalosOperation"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      dry_run  = false
      count    = 1
    }
  }
}
