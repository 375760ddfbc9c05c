# The params' checks at the valid side of their boundaries: every value
# here is the smallest (or the widest) its check accepts, and the rule file
# loads (refused-*: the values beyond are refused). The installation, off,
# rests in Off.
scenario "the smallest valid tunings are accepted" {
  rules   = ["executor.hcl"]
  run_for = "1m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-off.yaml", "prod.yaml"]

  rule "autopatch" {
    params = {
      auto_patch_components = "talos, cilium, kubernetes"
      tick                  = "1s"
      tick_jitter           = "0s"
      release_max_age       = "1s"
      start_guard           = "0s"
      create_tries          = 1
      create_retry_delay    = "1s"
    }
  }

  expect "1m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Off"
    fields = { "status.effective.autoPatch" = false }
  }
}
