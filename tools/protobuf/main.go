// Command protobuf writes what the fake API server needs to read protobuf
// request bodies of built-in kinds:
//
//	go run . descriptors ../../testing/_protobuf/data.ts
//	go run . golden ../../testing/_protobuf/golden.ts
//	go run . sample ../../testing/_protobuf/sample.ts
//	go run . fuzz OUT.json N
//
// The descriptors come from the release's Go types (k8s.io/api and
// k8s.io/apimachinery, the versions tools/control-plane pins): each field's
// `protobuf` tag is the generated.proto field (number, wire type, repeated)
// and its `json` tag is the name and omitempty rule a JSON client writes by.
// The golden and fuzz files hold protobuf bytes written by the generated
// Marshal and the JSON that the Go types give for what those bytes decode to.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: protobuf descriptors|golden|sample|fuzz OUT [N]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "descriptors":
		err = writeDescriptors(os.Args[2])
	case "golden":
		err = writeGolden(os.Args[2])
	case "sample":
		err = writeSample(os.Args[2])
	case "fuzz":
		n := 3
		if len(os.Args) > 3 {
			fmt.Sscan(os.Args[3], &n)
		}
		err = writeFuzz(os.Args[2], n)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
