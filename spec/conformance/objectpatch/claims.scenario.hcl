# OP-107, OP-108, OP-109, OP-110, OP-111, OP-112, OP-113, OP-114, OP-115,
# OP-116, OP-57: patches share a target when their static claims do not
# conflict; claims are arbitrated oldest first by creation timestamp, then
# name; a loser reports Error, TargetAlreadyClaimed and rechecks every
# requeueInterval; a blocked claimant reserves none of its other claims;
# ObjectPatch claims are compared within their namespace; an empty object
# claims its exact path, which conflicts with its children.
scenario "claims arbitration between ObjectPatches" {
  rules   = ["objectpatch"]
  run_for = "25m"
  objects = ["namespace.yaml", "deployment.yaml", "claims.yaml"]

  at "1m" {
    create = ["claims-later.yaml"]
  }
  at "2m" {
    create = ["claims-latest.yaml"]
  }
  expect "3m" {
    object = "ObjectPatch/patches-demo/team-a"
    state  = "Applied"
  }
  expect "3m" {
    object = "ObjectPatch/patches-demo/team-b"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
    fields = {
      "status.outcome"                  = "Failure"
      "status.conditions[Ready].status" = "False"
      "status.message"                  = "claim /metadata/labels/team is held by patches-demo/team-a"
    }
  }
  expect "3m" {
    object = "ObjectPatch/patches-demo/tier"
    state  = "Applied"
  }
  expect "3m" {
    object = "ObjectPatch/patches-demo/blocked"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
  }
  expect "3m" {
    object = "ObjectPatch/patches-demo/parent"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
    fields = { "status.message" = "claim /metadata/labels conflicts with /metadata/labels/team held by patches-demo/team-a" }
  }
  expect "3m" {
    object = "ObjectPatch/patches-demo/cost"
    state  = "Applied"
  }
  expect "3m" {
    object = "ObjectPatch/other/team-z"
    state  = "Applied"
  }
  expect "3m" {
    object = "Deployment/patches-demo/application"
    fields = {
      "metadata.labels.team"      = "a"
      "metadata.labels.tier"      = "web"
      "metadata.annotations.cost" = "low"
    }
  }
  # The winner goes away: at its next recheck (requeueInterval after it
  # lost) the next oldest claimant takes the claim.
  at "7m" {
    delete = ["ObjectPatch/patches-demo/team-a"]
  }
  expect "4m" {
    object = "ObjectPatch/patches-demo/team-b"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
  }
  expect "11m" {
    object = "ObjectPatch/patches-demo/team-b"
    state  = "Applied"
    reason = "Applied"
  }
  expect "11m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.team" = "b" }
  }
  # The later claimants still lose, now to team-b.
  expect "12m" {
    object = "ObjectPatch/patches-demo/blocked"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
    fields = { "status.message" = "claim /metadata/labels/team is held by patches-demo/team-b" }
  }
}
