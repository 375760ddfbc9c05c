package engine

import (
	"fmt"
	"strings"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
)

// A machine's memory is the map its rules read as status: where the
// engine keeps its state, counters and timestamps between reconciles. The
// rule file says where it lives (rules.Machine.MemoryIn): in the driven
// object's status (a custom resource whose schema has room for it), in an
// annotation of the driven object, or in a companion ConfigMap the object
// owns (for built-in and foreign kinds, whose status the API server
// prunes of fields it does not know).

// MemoryOf returns the memory of the object obj of machine m, when the
// machine keeps it in the object (its status, or an annotation).
func MemoryOf(m *fsm.Machine, obj map[string]any) map[string]any { return memoryOf(m, obj) }

// CompanionMemory returns the memory kept in a companion ConfigMap.
func CompanionMemory(cm map[string]any) map[string]any {
	data, _ := cm["data"].(map[string]any)
	return decodeMemory(data["memory"])
}

// CompanionRef names the companion ConfigMap of the object ref of m.
func CompanionRef(m *fsm.Machine, ref adapters.Ref) adapters.Ref { return companionRef(m, ref) }

// memoryOf reads the memory of m from obj; a companion's memory is not in
// obj, and reads as empty here.
func memoryOf(m *fsm.Machine, obj map[string]any) map[string]any {
	switch m.Source.MemoryIn {
	case "annotation":
		md, _ := obj["metadata"].(map[string]any)
		ann, _ := md["annotations"].(map[string]any)
		return decodeMemory(ann[m.Source.MemoryKey])
	case "companion":
		return map[string]any{}
	}
	return statusOf(obj)
}

// decodeMemory reads memory kept as JSON text; anything else is empty.
func decodeMemory(v any) map[string]any {
	s, _ := v.(string)
	if s == "" {
		return map[string]any{}
	}
	mem, err := jsonvalue.Decode([]byte(s))
	if m, ok := mem.(map[string]any); err == nil && ok {
		return m
	}
	return map[string]any{}
}

// companionRef names the ConfigMap that holds the memory of the object ref
// of m: "<name>.<machine>.memory", beside the object (or in the machine's
// memory_namespace for a cluster-scoped one).
func companionRef(m *fsm.Machine, ref adapters.Ref) adapters.Ref {
	ns := ref.Namespace
	if ns == "" {
		ns = m.Source.MemoryNamespace
	}
	name := strings.ToLower(strings.ReplaceAll(fmt.Sprintf("%s.%s.memory", ref.Name, m.Name), "_", "-"))
	return adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: name}
}

// memoryWrite returns the request that keeps the memory after of the
// object obj (read as before): a merge patch of the difference on the
// status subresource, the annotation on the object, or the companion
// ConfigMap (created, owned by the object, when it did not exist).
func memoryWrite(m *fsm.Machine, ref adapters.Ref, obj, before, after map[string]any, companionExists bool) (adapters.Request, error) {
	switch m.Source.MemoryIn {
	case "annotation", "companion":
		text, err := jsonvalue.CanonicalJSON(after)
		if err != nil {
			return adapters.Request{}, fmt.Errorf("memory: %w", err)
		}
		if m.Source.MemoryIn == "annotation" {
			patch := map[string]any{"metadata": map[string]any{"annotations": map[string]any{m.Source.MemoryKey: string(text)}}}
			return adapters.Request{Verb: adapters.Patch, Ref: ref, PatchType: adapters.MergePatch, Body: patch, FieldManager: "statecraft"}, nil
		}
		cref := companionRef(m, ref)
		if companionExists {
			patch := map[string]any{"data": map[string]any{"memory": string(text)}}
			return adapters.Request{Verb: adapters.Patch, Ref: cref, PatchType: adapters.MergePatch, Body: patch, FieldManager: "statecraft"}, nil
		}
		md, _ := obj["metadata"].(map[string]any)
		owner := map[string]any{"apiVersion": ref.APIVersion, "kind": ref.Kind, "name": ref.Name, "uid": md["uid"]}
		cm := map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": cref.Name, "namespace": cref.Namespace,
				"labels":          map[string]any{"statecraft.dev/machine": m.Name},
				"ownerReferences": []any{owner}},
			"data": map[string]any{"memory": string(text)},
		}
		return adapters.Request{Verb: adapters.Create, Ref: cref, Body: cm, FieldManager: "statecraft"}, nil
	}
	patch := map[string]any{"status": jsonvalue.MergeDiff(before, after)}
	return adapters.Request{Verb: adapters.Patch, Ref: ref, Subresource: "status", PatchType: adapters.MergePatch, Body: patch, FieldManager: "statecraft"}, nil
}
