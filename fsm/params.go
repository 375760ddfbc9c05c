package fsm

import (
	"fmt"
	"strconv"
	"time"
)

// ParamValue converts a literal (from a rule file's default or a CR field)
// into the Go value of a param of type typ: time.Duration, int64, bool or
// string. Durations accept Go and Kubernetes forms ("5m", "1h30m", "90s");
// a duration is a length of time, never negative.
func ParamValue(typ string, v any) (any, error) {
	switch typ {
	case "duration":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a duration string such as \"5m\", got %v", v)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a duration such as \"5m\" or \"1h30m\"", s)
		}
		if d < 0 {
			return nil, fmt.Errorf("%q is negative: a duration is a length of time", s)
		}
		return d, nil
	case "int":
		switch n := v.(type) {
		case int64:
			return n, nil
		case int:
			return int64(n), nil
		case float64:
			if n != float64(int64(n)) {
				return nil, fmt.Errorf("%v is not a whole number", n)
			}
			return int64(n), nil
		case string:
			i, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a whole number", n)
			}
			return i, nil
		}
		return nil, fmt.Errorf("want a whole number, got %v", v)
	case "bool":
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("want true or false, got %v", v)
		}
		return b, nil
	case "string":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %v", v)
		}
		return s, nil
	}
	return nil, fmt.Errorf("unknown param type %q", typ)
}
