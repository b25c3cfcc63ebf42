package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// A field as generated.proto declares it.
type protoField struct {
	number   int
	repeated bool
}

// protoFiles reads the generated.proto of each Go package once: package
// path → message → field name → field.
var protoFiles = map[string]map[string]map[string]protoField{}

var (
	messageLine = regexp.MustCompile(`^message (\w+) \{`)
	fieldLine   = regexp.MustCompile(`^\s+(optional|repeated)?\s*(map<[^>]+>|[\w.]+) (\w+) = (\d+);`)
)

func protoMessage(pkgPath, message string) map[string]protoField {
	file, ok := protoFiles[pkgPath]
	if !ok {
		out, err := exec.Command("go", "list", "-f", "{{.Dir}}", pkgPath).Output()
		if err != nil {
			panic(fmt.Sprintf("go list %s: %v", pkgPath, err))
		}
		text, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "generated.proto"))
		if err != nil {
			panic(err)
		}
		file = map[string]map[string]protoField{}
		var current map[string]protoField
		for _, line := range strings.Split(string(text), "\n") {
			if m := messageLine.FindStringSubmatch(line); m != nil {
				current = map[string]protoField{}
				file[m[1]] = current
				continue
			}
			if line == "}" {
				current = nil
				continue
			}
			if m := fieldLine.FindStringSubmatch(line); m != nil && current != nil {
				var number int
				fmt.Sscan(m[4], &number)
				current[m[3]] = protoField{number, m[1] == "repeated"}
			}
		}
		protoFiles[pkgPath] = file
	}
	fields, ok := file[message]
	if !ok {
		panic(fmt.Sprintf("%s: no message %s in generated.proto", pkgPath, message))
	}
	return fields
}
