# OP-129, OP-130, OP-46, OP-112, OP-113: a patch in a terminal Error other
# than TargetAlreadyClaimed keeps it when it also loses its claim. Admission
# drops label tier from the writes at the start: second ends in Error,
# PatchNotApplied. At 2m first, the oldest, comes to claim tier too. At 3m
# a metadata edit of second (a label) makes the engine reconcile it: it
# stays Error, PatchNotApplied (not TargetAlreadyClaimed, which would
# recheck every requeueInterval and, once the claim is free, start a cycle
# nobody authorized); at 9m, after a requeueInterval, likewise.
scenario "a terminal error keeps its reason when its claim is lost" {
  rules   = ["objectpatch"]
  run_for = "10m"
  objects = ["namespace.yaml", "deployment.yaml", "error-claim-lost.yaml"]

  drop {
    verb = "patch"
    kind = "Deployment"
    path = "metadata.labels.tier"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/second"
    state  = "Error"
    reason = "PatchNotApplied"
  }
  at "1m" {
    clear_admission = true
  }
  at "2m" {
    patch "ObjectPatch/patches-demo/first" {
      merge = { spec = { patch = { metadata = { labels = { owner = "1", tier = "1" } } } } }
    }
  }
  expect "2m" {
    object = "ObjectPatch/patches-demo/first"
    state  = "Applied"
  }
  at "3m" {
    patch "ObjectPatch/patches-demo/second" {
      merge = { metadata = { labels = { touched = "yes" } } }
    }
  }
  expect "3m" {
    object = "ObjectPatch/patches-demo/second"
    state  = "Error"
    reason = "PatchNotApplied"
  }
  expect "9m" {
    object = "ObjectPatch/patches-demo/second"
    state  = "Error"
    reason = "PatchNotApplied"
  }
  expect "9m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.tier" = "1" }
  }
}
