# OP-110: a loser rechecks its claim every requeueInterval, from the moment
# it lost. team-b loses to team-a at the start; team-a is deleted at 3m.
# team-b's first recheck, requeueInterval (5m) after it lost, finds the
# claim free: at 4m59s it still reports TargetAlreadyClaimed, at 5m it is
# Applied. (claims shows the later rechecks: team-a deleted at 7m, team-b
# applied at its recheck at 10m.)
scenario "claims: a loser's first recheck after requeueInterval" {
  rules   = ["objectpatch"]
  run_for = "6m"
  objects = ["namespace.yaml", "deployment.yaml", "claims.yaml"]

  at "3m" {
    delete = ["ObjectPatch/patches-demo/team-a"]
  }
  expect "4m59s" {
    object = "ObjectPatch/patches-demo/team-b"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
  }
  expect "4m59s" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.team" = "a" }
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/team-b"
    state  = "Applied"
    reason = "Applied"
  }
  expect "5m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.team" = "b" }
  }
}
