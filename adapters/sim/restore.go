package sim

import (
	"fmt"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

// restoredFields are the server-set metadata fields Restore keeps as the
// object carries them.
var restoredFields = []string{"uid", "creationTimestamp", "generation"}

// Restore stages obj as Apply does, but keeps the uid, creationTimestamp
// and generation it carries (each that it carries): for an object read
// from a real cluster and replayed here (a recording, package record),
// whose owner references name other objects by uid and whose status
// records the generation it observed. A uid another stored object already
// has is refused.
func (c *Cluster) Restore(obj map[string]any) error {
	norm, err := normalize(obj)
	if err != nil {
		return fmt.Errorf("sim: Restore: %w", err)
	}
	kept := map[string]any{}
	for _, f := range restoredFields {
		if v, ok := metadata(norm)[f]; ok {
			kept[f] = v
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ref := adapters.Ref{APIVersion: metaStringTop(norm, "apiVersion"), Kind: metaStringTop(norm, "kind"),
		Namespace: metaString(norm, "namespace"), Name: metaString(norm, "name")}
	if uid, _ := kept["uid"].(string); uid != "" {
		if key, taken := c.byUID[uid]; taken && (key.namespace != ref.Namespace || key.name != ref.Name || key.kind != ref.Kind) {
			return fmt.Errorf("sim: Restore %s: uid %s is %s's", ref, uid, key.name)
		}
	}
	if err := c.stage(norm); err != nil {
		return err
	}
	if len(kept) == 0 {
		return nil
	}
	k, res, good := c.resolve(adapters.Request{Verb: adapters.Get, Ref: ref})
	if !good {
		return fmt.Errorf("sim: Restore %s: %s", ref, res.Message)
	}
	key := keyOf(k, ref.Namespace, ref.Name)
	e := c.objects[key]
	if e == nil {
		return fmt.Errorf("sim: Restore %s: not stored", ref)
	}
	stored := e.own(c.frozen)
	md := metadata(stored)
	if uid, ok := kept["uid"].(string); ok && uid != "" {
		delete(c.byUID, metaString(stored, "uid"))
		c.byUID[uid] = key
	}
	for f, v := range kept {
		md[f] = jsonvalue.DeepCopy(v)
	}
	c.changed(stored, false)
	return nil
}

func metaStringTop(obj map[string]any, field string) string {
	s, _ := obj[field].(string)
	return s
}
