# AP-27 AP-38: the setting is checked before the halt. prod's automatic
# Talos operation fails (Paused) at 2m; at 2m30s, before the next tick
# would see it, a person turns automatic patching off. The tick that reads
# the setting off returns: the patcher is Off, not Halted (no
# AutoPatchHalted condition, record or Warning Event), and while off it
# lists no operation. Turned on again at 12m, the paused operation halts it
# at once.
scenario "turned off while an automatic operation pauses" {
  rules   = ["executor.hcl"]
  run_for = "15m"
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
  at "2m30s" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { enabled = false } } }
    }
  }
  at "12m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { enabled = true } } }
    }
  }

  expect "2m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Paused" }
  }
  expect "2m30s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Off"
    reason = "Disabled"
    fields = {
      "status.conditions[AutoPatchHalted].status" = "False"
      "status.autoPatch.haltedOperation"          = null
      "status.autoPatch.blocked"                  = null
    }
  }
  # The patcher's lists of operations until its tick read the setting off
  # at 2m30s ...
  expect "2m30s" {
    reads {
      verb  = "list"
      kind  = "TalosOperation"
      count = 7
    }
  }
  expect "11m59s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Off"
    fields = { "status.conditions[AutoPatchHalted].status" = "False" }
  }
  # ... and none since: the ticks while off read only the settings.
  expect "11m59s" {
    reads {
      verb  = "list"
      kind  = "TalosOperation"
      count = 7
    }
  }
  expect "11m59s" {
    object = "Event/ichor-system/ichor.autopatchhalted.fleet.prod-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "12m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    reason = "AutoPatchHalted"
    fields = {
      "status.autoPatch.haltedOperation"          = "fleet/prod-autopatch-talos-v1-10-5"
      "status.conditions[AutoPatchHalted].status" = "True"
    }
  }
}
