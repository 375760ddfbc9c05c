package library

import (
	"github.com/google/cel-go/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// The declared result types of the library's functions. A function that
// returns a record returns a CEL object type declared here, as the API
// server declares the type of a CRD's self from its schema (an
// apiserver/pkg/cel DeclType), so the checker refuses a field the record
// does not have (plan.activName is a compile error, not an evaluation that
// finds no key). At run time the records are the plain maps the functions
// build: the types exist for the checker only.
//
// A record's optional fields are read as any object field: has(r.f),
// r.?f.orValue(x).

// resultTypes are the library's record types, made for one environment
// (nothing here is process-global).
type resultTypes struct {
	ref, ownerReference, kind, condition                     *apiservercel.DeclType
	resolution, resolved, protection, observed, probeVerdict *apiservercel.DeclType
	validation, patchPlan, claimVerdict, version             *apiservercel.DeclType
}

func newResultTypes() *resultTypes {
	str, integer, boolean, dyn := apiservercel.StringType, apiservercel.IntType, apiservercel.BoolType, apiservercel.DynType
	list := func(t *apiservercel.DeclType) *apiservercel.DeclType { return apiservercel.NewListType(t, -1) }
	object := func(name string, fields ...any) *apiservercel.DeclType {
		fs := map[string]*apiservercel.DeclField{}
		for i := 0; i < len(fields); i += 2 {
			n := fields[i].(string)
			fs[n] = apiservercel.NewDeclField(n, fields[i+1].(*apiservercel.DeclType), false, nil, nil)
		}
		return apiservercel.NewObjectType(name, fs)
	}
	rt := &resultTypes{}
	rt.ref = object("statecraft.Ref", "apiVersion", str, "kind", str, "namespace", str, "name", str)
	rt.ownerReference = object("statecraft.OwnerReference",
		"apiVersion", str, "kind", str, "name", str, "uid", str, "controller", boolean, "blockOwnerDeletion", boolean)
	rt.kind = object("statecraft.rollout.Kind", "apiVersion", str, "kind", str)
	rt.condition = object("statecraft.Condition",
		"type", str, "status", str, "reason", str, "message", str, "observedGeneration", integer, "lastTransitionTime", str)
	rt.protection = object("statecraft.rollout.CollisionProtection", "object", str, "phase", str)
	rt.resolved = object("statecraft.rollout.ResolvedObject",
		"phase", str, "phaseIndex", integer, "index", integer, "object", dyn, "collisionProtection", rt.protection)
	rt.resolution = object("statecraft.rollout.Resolution", "objects", list(rt.resolved), "error", str, "errorKind", str)
	rt.observed = object("statecraft.rollout.ObservedObject",
		"phase", str, "phaseIndex", integer, "index", integer, "ref", rt.ref, "collisionProtection", rt.protection,
		"manifest", dyn, "exists", boolean, "deleting", boolean, "live", dyn,
		"controller", rt.ownerReference, "controllerRevision", integer, "controlledBySelf", boolean,
		"referencedBySelf", boolean, "ownerReferences", list(dyn), "inSync", boolean)
	rt.probeVerdict = object("statecraft.rollout.ProbeVerdict", "ready", boolean, "message", str)
	rt.validation = object("statecraft.objpatch.Validation", "ok", boolean, "error", str)
	// merge, json and full are null when there is nothing to send.
	rt.patchPlan = object("statecraft.objpatch.Plan",
		"ok", boolean, "error", str, "changed", boolean, "retained", boolean, "object", dyn, "merge", dyn, "json", dyn, "full", dyn)
	rt.claimVerdict = object("statecraft.objpatch.Verdict", "accepted", boolean, "winner", str, "message", str)
	rt.version = object("statecraft.upgrade.Version",
		"ok", boolean, "major", integer, "minor", integer, "patch", integer, "pre", str, "final", boolean, "minorString", str)
	return rt
}

// all lists the root types, for the environment's type provider.
func (rt *resultTypes) all() []*apiservercel.DeclType {
	return []*apiservercel.DeclType{rt.ref, rt.ownerReference, rt.kind, rt.condition, rt.resolution, rt.observed, rt.probeVerdict,
		rt.validation, rt.patchPlan, rt.claimVerdict, rt.version}
}

// declare is the environment option that makes rt's types known to the
// checker, over whatever provider the environment has so far.
func (rt *resultTypes) declare() cel.EnvOption {
	return func(e *cel.Env) (*cel.Env, error) {
		opts, err := apiservercel.NewDeclTypeProvider(rt.all()...).EnvOptions(e.CELTypeProvider())
		if err != nil {
			return nil, err
		}
		for _, o := range opts {
			if e, err = o(e); err != nil {
				return nil, err
			}
		}
		return e, nil
	}
}

func listOf(t *apiservercel.DeclType) *cel.Type { return cel.ListType(t.CelType()) }
