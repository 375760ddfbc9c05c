# AP-03 AP-08 AP-29: the controller flags (chart values autoPatch.enabled,
# components, window) as the policy's params, and spec.autoPatch winning
# field by field: enabled and components are unset in spec (the flags
# hold: on, kubernetes only), window is set (02:00-05:00 wins over the
# flag's 22:00-02:00). Outside the window nothing starts; at 02:00 the
# Kubernetes patch starts and Talos, not selected, never does. At 3h an
# empty window is written (what a form's cleared field writes): the flag's
# window applies again.
scenario "flags, and spec.autoPatch field by field over them" {
  rules   = ["executor.hcl"]
  run_for = "3h1m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-window.yaml", "prod.yaml"]

  rule "autopatch" {
    params = {
      tick_jitter           = "0s" # ticks on the minute (see tick-jitter)
      auto_patch            = true
      auto_patch_components = "kubernetes"
      auto_patch_window     = "22:00-02:00"
    }
  }

  at "3h" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { window = "" } } }
    }
  }

  expect "1h59m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OutsideWindow"
    fields = {
      "status.effective.autoPatch"           = true
      "status.effective.autoPatchComponents" = ["kubernetes"]
      "status.effective.autoPatchWindow"     = "02:00-05:00"
    }
  }
  expect "1h59m" {
    writes {
      kind  = "TalosCluster"
      count = 0
    }
  }
  expect "2h" {
    object = "TalosCluster/fleet/prod"
    fields = {
      "spec.talosVersion"      = "v1.10.2"
      "spec.kubernetesVersion" = "v1.32.6"
    }
  }
  expect "2h59m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "NoCandidate"
    fields = { "status.autoPatch.lastOperation" = "fleet/prod-autopatch-kubernetes-v1-32-6" }
  }
  expect "2h59m" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 1
    }
  }
  expect "3h1m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "OutsideWindow"
    fields = { "status.effective.autoPatchWindow" = "22:00-02:00" }
  }
}
