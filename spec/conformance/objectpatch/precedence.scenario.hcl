# Which reason a patch wrong in two ways reports (the order of the checks
# that end a cycle).
# OP-122, OP-123, OP-126: c-self-empty targets itself and its patch is
# empty: SelfTargetNotAllowed, whose remedy (delete and recreate with
# another target) is the only one that can help; InvalidPatch would send
# its author to edit a patch whose targetRef cannot change.
# OP-126, OP-107: b-invalid is invalid (op move) and claims label team after
# a-winner: InvalidPatch. An invalid patch is no claimant (arbitration
# leaves it out for the others), so it has no claim to lose, and nothing
# to recheck: no TargetAlreadyClaimed.
# OP-112, OP-113, OP-124: ca-second loses its claim to ca-first, and their
# target's API is not installed: a loser reports TargetAlreadyClaimed and
# rechecks every requeueInterval, whatever its target (claims are static,
# judged from the specs alone). ca-first is deleted at 2m: ca-second's 5m
# recheck finds the claim free and only then reports UnsupportedTarget.
scenario "precedence of the checks that end a cycle" {
  rules   = ["objectpatch"]
  run_for = "6m"
  objects = ["relaxed-crd.yaml", "namespace.yaml", "deployment.yaml", "precedence.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/c-self-empty"
    state  = "Error"
    reason = "SelfTargetNotAllowed"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/b-invalid"
    state  = "Error"
    reason = "InvalidPatch"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/a-winner"
    state  = "Applied"
  }
  expect "1m" {
    object = "ClusterObjectPatch/ca-first"
    state  = "Error"
    reason = "UnsupportedTarget"
  }
  expect "1m" {
    object = "ClusterObjectPatch/ca-second"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
  }
  at "2m" {
    delete = ["ClusterObjectPatch/ca-first"]
  }
  expect "4m59s" {
    object = "ClusterObjectPatch/ca-second"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
  }
  expect "5m" {
    object = "ClusterObjectPatch/ca-second"
    state  = "Error"
    reason = "UnsupportedTarget"
  }
}
