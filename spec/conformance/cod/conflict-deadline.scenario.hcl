# Ownership checks take precedence over the deadline: revision 1 is still
# rolling out when another controller's revision 2 becomes the highest
# active member; past revision 1's ten-minute budget the COD reports
# OwnerConflict, not ProgressDeadlineExceeded.
scenario "owner conflict over the deadline" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "15m"
  objects = ["deploy-cod.yaml"]

  at "2m" {
    create = ["foreign-newer.yaml"]
  }
  expect "12m" {
    object = "ClusterObjectDeployment/web"
    state  = "OwnerConflict"
    fields = {
      "status.conditions[Progressing].reason" = "OwnerConflict"
      "status.conditions[Available].reason"   = "Unavailable"
    }
  }
}
