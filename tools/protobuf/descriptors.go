package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
)

// Types whose protobuf and JSON forms are written by hand in apimachinery;
// the decoder knows each by its code.
var special = map[reflect.Type]string{
	reflect.TypeFor[metav1.Time]():          "time",
	reflect.TypeFor[metav1.MicroTime]():     "mtime",
	reflect.TypeFor[metav1.Duration]():      "dur",
	reflect.TypeFor[resource.Quantity]():    "qty",
	reflect.TypeFor[intstr.IntOrString]():   "ios",
	reflect.TypeFor[runtime.RawExtension](): "raw",
	reflect.TypeFor[metav1.FieldsV1]():      "raw",
}

var (
	jsonMarshaler  = reflect.TypeFor[json.Marshaler]()
	protoMarshaler = reflect.TypeFor[interface{ Marshal() ([]byte, error) }]()
)

// A field: [number, JSON name, shape, type, flags, map value type].
// Shape: 0 a value, 1 a pointer, 2 repeated, 3 a map. Flags: "o" omitempty,
// "z" omitzero (of a Time),
// "i" inlined in JSON, "w" the message is a list that JSON writes as its
// items (ExtraValue).
type field []any

type collector struct {
	messages map[string][]field
}

func typeName(t reflect.Type) string {
	pkg := t.PkgPath()
	pkg = strings.TrimPrefix(pkg, "k8s.io/api/")
	pkg = strings.TrimPrefix(pkg, "k8s.io/apimachinery/pkg/apis/")
	pkg = strings.TrimPrefix(pkg, "k8s.io/apimachinery/pkg/")
	return pkg + "." + t.Name()
}

func scalar(t reflect.Type, wire string) string {
	switch t.Kind() {
	case reflect.String:
		return "s"
	case reflect.Bool:
		return "b"
	case reflect.Int32:
		return "i32"
	case reflect.Int64:
		if wire == "zigzag64" {
			return "z64"
		}
		return "i64"
	case reflect.Int:
		return "i64"
	case reflect.Uint32:
		return "u32"
	case reflect.Uint64:
		return "u64"
	case reflect.Float64:
		return "f64"
	case reflect.Float32:
		return "f32"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "y"
		}
	}
	return ""
}

// ref names the type of a value: a scalar code, a special code or a message.
func (c *collector) ref(t reflect.Type, wire string) string {
	if code, ok := special[t]; ok {
		return code
	}
	if t.Kind() == reflect.Struct {
		c.message(t)
		return typeName(t)
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		// A named list that is its own message (ExtraValue: items = 1).
		if !reflect.PointerTo(t).Implements(protoMarshaler) {
			panic(fmt.Sprintf("slice %v is no message", t))
		}
		name := typeName(t)
		if _, ok := c.messages[name]; !ok {
			c.messages[name] = []field{{1, "", 2, c.ref(t.Elem(), "bytes"), "w"}}
		}
		return name
	}
	if code := scalar(t, wire); code != "" {
		return code
	}
	panic(fmt.Sprintf("no protobuf form for %v", t))
}

func (c *collector) message(t reflect.Type) {
	name := typeName(t)
	if _, ok := c.messages[name]; ok {
		return
	}
	if reflect.PointerTo(t).Implements(jsonMarshaler) || t.Implements(jsonMarshaler) {
		panic(fmt.Sprintf("%v writes its own JSON", t))
	}
	c.messages[name] = nil // guards recursion through pointers
	fields := []field{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		jsonTag, hasJSON := f.Tag.Lookup("json")
		parts := strings.Split(jsonTag, ",")
		jsonName := parts[0]
		if jsonName == "-" && len(parts) == 1 {
			continue
		}
		flags := ""
		for _, option := range parts[1:] {
			switch option {
			case "omitempty":
				flags += "o"
			case "inline":
				flags += "i"
			case "omitzero":
				// Only a Time has it today; the decoder knows a zero Time.
				if special[f.Type] != "time" && special[f.Type] != "mtime" {
					panic(fmt.Sprintf("%v.%s: omitzero is not handled", t, f.Name))
				}
				flags += "z"
			}
		}
		if jsonName == "" {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				if !strings.Contains(flags, "i") {
					flags += "i"
				}
			} else if !hasJSON || jsonName == "" {
				jsonName = f.Name
			}
		}
		number := 0
		wire := ""
		repeated := false
		if tag, ok := f.Tag.Lookup("protobuf"); ok {
			// generated.proto is the truth: some hand-written tags say
			// "rep" of a single field or leave it out of a list.
			bits := strings.Split(tag, ",")
			wire = bits[0]
			protoName := ""
			for _, bit := range bits {
				if name, ok := strings.CutPrefix(bit, "name="); ok {
					protoName = name
				}
			}
			if protoName == "" {
				protoName = strings.ToLower(f.Name[:1]) + f.Name[1:]
			}
			declared, ok := protoMessage(t.PkgPath(), t.Name())[protoName]
			if !ok {
				panic(fmt.Sprintf("%v.%s: no field %s in generated.proto", t, f.Name, protoName))
			}
			var tagged int
			fmt.Sscan(bits[1], &tagged)
			if tagged != declared.number {
				fmt.Fprintf(os.Stderr, "%v.%s: tag says %d, generated.proto %d\n", t, f.Name, tagged, declared.number)
			}
			number = declared.number
			repeated = declared.repeated
		}
		ft := f.Type
		shape := 0
		if ft.Kind() == reflect.Pointer {
			shape = 1
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Map {
			keyWire := strings.Split(f.Tag.Get("protobuf_key"), ",")[0]
			valWire := strings.Split(f.Tag.Get("protobuf_val"), ",")[0]
			fields = append(fields, field{
				number, jsonName, 3, c.ref(ft.Key(), keyWire), flags,
				c.ref(ft.Elem(), valWire),
			})
			continue
		}
		if repeated && ft.Kind() != reflect.Slice {
			panic(fmt.Sprintf("%v.%s: repeated but no slice", t, f.Name))
		}
		if repeated {
			elem := ft.Elem()
			if elem.Kind() == reflect.Pointer {
				elem = elem.Elem()
			}
			fields = append(fields, field{number, jsonName, 2, c.ref(elem, wire), flags})
			continue
		}
		if number == 0 && !(f.Anonymous && ft.Kind() == reflect.Struct) {
			// A field the protobuf form has not: JSON writes its zero.
			if scalar(ft, "") == "" && special[ft] == "" && ft.Kind() != reflect.Struct {
				panic(fmt.Sprintf("%v.%s: no protobuf field and no zero", t, f.Name))
			}
		}
		fields = append(fields, field{number, jsonName, shape, c.ref(ft, wire), flags})
	}
	c.messages[name] = fields
}

func writeDescriptors(out string) error {
	c := &collector{messages: map[string][]field{}}
	kinds := map[string]string{}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if !reflect.PointerTo(t).Implements(protoMarshaler) {
			continue
		}
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		if strings.HasSuffix(gvk.Kind, "Options") || gvk.Kind == "WatchEvent" {
			// Every group has apimachinery's options; only DeleteOptions is
			// a body, and the decoder takes it whatever its apiVersion.
			if gvk.Kind == "DeleteOptions" {
				c.message(t)
				kinds["DeleteOptions"] = typeName(t)
			}
			continue
		}
		c.message(t)
		kinds[gvk.GroupVersion().String()+"/"+gvk.Kind] = typeName(t)
	}
	var b strings.Builder
	b.WriteString("// Generated by tools/protobuf (go run . descriptors): do not edit.\n")
	b.WriteString("// The protobuf messages of the built-in kinds of k8s.io/api v0.37.2 and\n")
	b.WriteString("// their JSON names, from the Go types' protobuf and json tags.\n\n")
	b.WriteString("/** A field: [number, JSON name, shape, type, flags, map value type]. */\n")
	b.WriteString("export type ProtoField = readonly [\n  number,\n  string,\n  0 | 1 | 2 | 3,\n  string,\n  string,\n  string?,\n];\n\n")
	b.WriteString("/** The message of each apiVersion/kind. */\n")
	b.WriteString("export const KINDS: Readonly<Record<string, string>> = ")
	writeSorted(&b, kinds, func(v string) string { j, _ := json.Marshal(v); return string(j) })
	b.WriteString(";\n\n/** The fields of each message. */\n")
	b.WriteString("export const MESSAGES: Readonly<Record<string, readonly ProtoField[]>> = ")
	writeSorted(&b, c.messages, func(v []field) string { j, _ := json.Marshal(v); return string(j) })
	b.WriteString(";\n")
	fmt.Fprintf(os.Stderr, "%d kinds, %d messages\n", len(kinds), len(c.messages))
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

func writeSorted[V any](b *strings.Builder, m map[string]V, value func(V) string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteString("{\n")
	for _, k := range keys {
		j, _ := json.Marshal(k)
		fmt.Fprintf(b, "  %s: %s,\n", j, value(m[k]))
	}
	b.WriteString("}")
}
