package sim

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/statecraft/statecraft/jsonvalue"
)

var (
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	qualifiedKey = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
)

// validate applies the object validation every kind shares: names, labels,
// annotations, owner references, finalizers. It returns "" when obj is valid.
func validate(k *kindInfo, obj map[string]any) string {
	md := metadata(obj)
	name, _ := md["name"].(string)
	switch {
	case k.kind == "Namespace" && (len(name) > 63 || !dnsLabel.MatchString(name)):
		return fmt.Sprintf("metadata.name: Invalid value: %q: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'", name)
	case len(name) > 253 || !dnsSubdomain.MatchString(name):
		return fmt.Sprintf("metadata.name: Invalid value: %q: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'", name)
	}
	if v, has := md["labels"]; has {
		m, isMap := v.(map[string]any)
		if !isMap && v != nil {
			return "metadata.labels: Invalid value: must be a map of strings"
		}
		for _, key := range jsonvalue.SortedKeys(m) {
			if msg := validQualifiedName(key); msg != "" {
				return fmt.Sprintf("metadata.labels: Invalid value: %q: %s", key, msg)
			}
			s, isString := m[key].(string)
			if !isString {
				return fmt.Sprintf("metadata.labels: Invalid value: the value of %q must be a string", key)
			}
			if s != "" && (len(s) > 63 || !qualifiedKey.MatchString(s)) {
				return fmt.Sprintf("metadata.labels: Invalid value: %q: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", s)
			}
		}
	}
	if v, has := md["annotations"]; has {
		m, isMap := v.(map[string]any)
		if !isMap && v != nil {
			return "metadata.annotations: Invalid value: must be a map of strings"
		}
		for _, key := range jsonvalue.SortedKeys(m) {
			if msg := validQualifiedName(key); msg != "" {
				return fmt.Sprintf("metadata.annotations: Invalid value: %q: %s", key, msg)
			}
			if _, isString := m[key].(string); !isString {
				return fmt.Sprintf("metadata.annotations: Invalid value: the value of %q must be a string", key)
			}
		}
	}
	if v, has := md["finalizers"]; has && v != nil {
		l, isList := v.([]any)
		if !isList {
			return "metadata.finalizers: Invalid value: must be a list of strings"
		}
		for i, f := range l {
			if s, isString := f.(string); !isString || s == "" {
				return fmt.Sprintf("metadata.finalizers[%d]: Invalid value: must be a non-empty string", i)
			}
		}
	}
	if v, has := md["ownerReferences"]; has && v != nil {
		l, isList := v.([]any)
		if !isList {
			return "metadata.ownerReferences: Invalid value: must be a list"
		}
		controllers := 0
		for i, e := range l {
			ref, isMap := e.(map[string]any)
			if !isMap {
				return fmt.Sprintf("metadata.ownerReferences[%d]: Invalid value: must be an object", i)
			}
			for _, f := range []string{"apiVersion", "kind", "name", "uid"} {
				if s, _ := ref[f].(string); s == "" {
					return fmt.Sprintf("metadata.ownerReferences[%d].%s: Required value", i, f)
				}
			}
			if b, _ := ref["controller"].(bool); b {
				controllers++
			}
		}
		if controllers > 1 {
			return "metadata.ownerReferences: Invalid value: Only one reference can have Controller set to true"
		}
	}
	return ""
}

func validQualifiedName(key string) string {
	name := key
	if i := strings.LastIndex(key, "/"); i >= 0 {
		prefix := key[:i]
		name = key[i+1:]
		if prefix == "" || len(prefix) > 253 || !dnsSubdomain.MatchString(prefix) {
			return "prefix part must be a lowercase RFC 1123 subdomain"
		}
	}
	if name == "" || len(name) > 63 || !qualifiedKey.MatchString(name) {
		return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	}
	return ""
}

// validateUpdate checks what an update may not change. It returns "" when
// the change from old to obj is allowed.
func validateUpdate(k *kindInfo, old, obj map[string]any) string {
	if metaString(obj, "name") != metaString(old, "name") {
		return "metadata.name: Invalid value: field is immutable"
	}
	if metaString(obj, "namespace") != metaString(old, "namespace") {
		return "metadata.namespace: Invalid value: field is immutable"
	}
	for _, p := range k.opts.Immutable {
		ov, had := getPath(old, p)
		nv, has := getPath(obj, p)
		if had && (!has || !jsonvalue.Equal(ov, nv)) {
			return fmt.Sprintf("%s: Invalid value: field is immutable", pointerToField(p))
		}
	}
	if b, _ := old["immutable"].(bool); b && (k.kind == "ConfigMap" || k.kind == "Secret") && k.apiVersion == "v1" {
		for _, f := range []string{"data", "binaryData", "stringData", "immutable"} {
			if !jsonvalue.Equal(old[f], obj[f]) {
				return fmt.Sprintf("%s: Forbidden: field is immutable when `immutable` is set", f)
			}
		}
	}
	if metaString(old, "deletionTimestamp") != "" {
		had := map[string]bool{}
		for _, f := range stringList(metadata(old)["finalizers"]) {
			had[f] = true
		}
		for _, f := range stringList(metadata(obj)["finalizers"]) {
			if !had[f] {
				return fmt.Sprintf("metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{%q}", f)
			}
		}
	}
	return ""
}

func pointerToField(p string) string {
	return strings.Join(splitPointer(p), ".")
}
