// Command generator reads YAML files with go-yaml v2 and writes each as JSON, converting maps the
// way sigs.k8s.io/yaml does (keys made strings). fbc-edit's readers must give the same values.
//
// Run (GOPATH mode, with Debian's golang-gopkg-yaml.v2-dev installed):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run main.go FILE.yaml > FILE.json
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"gopkg.in/yaml.v2"
)

func strings(v interface{}) interface{} {
	switch t := v.(type) {
	case map[interface{}]interface{}:
		out := map[string]interface{}{}
		for k, x := range t {
			out[fmt.Sprint(k)] = strings(x)
		}
		return out
	case []interface{}:
		for i := range t {
			t[i] = strings(t[i])
		}
		return t
	default:
		return v
	}
}

func main() {
	text, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var v interface{}
	if err := yaml.Unmarshal(text, &v); err != nil {
		panic(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(strings(v)); err != nil {
		panic(err)
	}
}
