package study

import (
	"fmt"
	"slices"
	"strings"
)

// StratumOf joins the values of the stratification keys.
func StratumOf(keys []string, val func(string) string) string {
	var parts []string
	for _, k := range keys {
		parts = append(parts, val(k))
	}
	return strings.Join(parts, " · ")
}

// CheckKeys validates --stratify keys against the kind's own.
func CheckKeys(keys, allowed []string) error {
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("--stratify: %q is not one of %s", k, strings.Join(allowed, ", "))
		}
	}
	return nil
}
