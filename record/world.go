package record

import (
	"sort"

	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/jsonvalue"
)

// Redacted replaces each value of a Secret's data when Secrets are recorded
// without it: base64 of "redacted".
const Redacted = "cmVkYWN0ZWQ="

// lastApplied is kubectl's copy of what it applied, which holds a Secret's
// data in the clear.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

func isSecret(apiVersion, kind string) bool { return apiVersion == "v1" && kind == "Secret" }

// isCRD reports a CustomResourceDefinition: staged before the objects it
// serves.
func isCRD(apiVersion, kind string) bool {
	return apiVersion == "apiextensions.k8s.io/v1" && kind == "CustomResourceDefinition"
}

// recorded returns obj as a recording keeps it: a copy without
// resourceVersion, managedFields and selfLink (the simulator has its own),
// without the controller's decision records (its bookkeeping, not the
// world's), and, unless secretData, with a Secret's data redacted.
func recorded(obj map[string]any, secretData bool) map[string]any {
	out, _ := jsonvalue.DeepCopy(obj).(map[string]any)
	if out == nil {
		return nil
	}
	md, _ := out["metadata"].(map[string]any)
	if md != nil {
		delete(md, "resourceVersion")
		delete(md, "managedFields")
		delete(md, "selfLink")
		if ann, ok := md["annotations"].(map[string]any); ok {
			delete(ann, controller.DecisionAnnotation)
			if len(ann) == 0 {
				delete(md, "annotations")
			}
		}
	}
	if !secretData {
		av, _ := out["apiVersion"].(string)
		k, _ := out["kind"].(string)
		if isSecret(av, k) {
			redactSecret(out)
		}
	}
	return out
}

// redactSecret replaces the values of a Secret's data, drops its
// stringData and kubectl's last-applied copy of it (in place).
func redactSecret(obj map[string]any) {
	if data, ok := obj["data"].(map[string]any); ok {
		for k := range data {
			data[k] = Redacted
		}
	}
	delete(obj, "stringData")
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			delete(ann, lastApplied)
			if len(ann) == 0 {
				delete(md, "annotations")
			}
		}
	}
}

// redactBody redacts what a write to a Secret carries (a copy).
func redactBody(body any) any {
	m, ok := jsonvalue.DeepCopy(body).(map[string]any)
	if !ok {
		return body
	}
	redactSecret(m)
	return m
}

// serverFields are the metadata fields only the server sets: left out of
// what another actor's change is replayed as (the simulator sets its own).
var serverFields = []string{"uid", "resourceVersion", "generation", "creationTimestamp",
	"deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink"}

// withoutServerFields returns a copy of obj without serverFields.
func withoutServerFields(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		m := make(map[string]any, len(md))
		for k, v := range md {
			m[k] = v
		}
		for _, f := range serverFields {
			delete(m, f)
		}
		out["metadata"] = m
	}
	return out
}

// change returns the merge patch that turned before into after, server
// fields aside (empty: nothing another actor could have changed).
func change(before, after map[string]any) map[string]any {
	return jsonvalue.MergeDiff(withoutServerFields(before), withoutServerFields(after))
}

func deleting(obj map[string]any) bool {
	md, _ := obj["metadata"].(map[string]any)
	ts, _ := md["deletionTimestamp"].(string)
	return ts != ""
}

func uidOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	s, _ := md["uid"].(string)
	return s
}

func refOfObject(obj map[string]any) Ref {
	md, _ := obj["metadata"].(map[string]any)
	r := Ref{}
	r.APIVersion, _ = obj["apiVersion"].(string)
	r.Kind, _ = obj["kind"].(string)
	r.Namespace, _ = md["namespace"].(string)
	r.Name, _ = md["name"].(string)
	return r
}

// fold applies one logged change to the objects known (in place): what
// the recorded world looked like after it.
func fold(known map[Ref]map[string]any, c Change) {
	if c.Ref == nil {
		return
	}
	switch c.Op {
	case "create", "seen":
		known[*c.Ref] = c.Object
	case "update":
		if prev, ok := known[*c.Ref]; ok {
			next, _ := jsonvalue.MergePatch(prev, c.Patch).(map[string]any)
			known[*c.Ref] = next
		}
	case "delete":
		if !c.Lingers {
			delete(known, *c.Ref)
		}
	}
}

// sortedObjects returns the objects, Namespaces first, then
// CustomResourceDefinitions (before the objects they serve), then by
// apiVersion, kind, namespace and name: owners need not come first (the
// simulator collects nothing while staging), but the order is stable.
func sortedObjects(known map[Ref]map[string]any) []map[string]any {
	refs := make([]Ref, 0, len(known))
	for r := range known {
		refs = append(refs, r)
	}
	sort.Slice(refs, func(i, j int) bool { return refLess(refs[i], refs[j]) })
	out := make([]map[string]any, 0, len(refs))
	for _, r := range refs {
		out = append(out, known[r])
	}
	return out
}

func refLess(a, b Ref) bool {
	an, bn := a.APIVersion == "v1" && a.Kind == "Namespace", b.APIVersion == "v1" && b.Kind == "Namespace"
	ac, bc := isCRD(a.APIVersion, a.Kind), isCRD(b.APIVersion, b.Kind)
	switch {
	case an != bn:
		return an
	case ac != bc:
		return ac
	case a.APIVersion != b.APIVersion:
		return a.APIVersion < b.APIVersion
	case a.Kind != b.Kind:
		return a.Kind < b.Kind
	case a.Namespace != b.Namespace:
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}
