// Command mermaid records the order in which opm's Mermaid writer (`opm alpha render-graph`) lists
// a channel's entries: sort.Slice over the entries in file order, greater version first, versions
// compared as semver without build metadata.
//
// Input (stdin): a JSON list of {"channel": name, "entries": [[name, version], ...]}, the entries
// in the order of the catalog's file. Output: the same list with "order", the entry names as
// sort.Slice leaves them. Versions here carry no prerelease part; the program refuses one.
package main

import (
	"encoding/json"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

type channel struct {
	Channel string      `json:"channel"`
	Entries [][2]string `json:"entries"`
	Order   []string    `json:"order"`
}

type output struct {
	Go       string    `json:"go"`
	Channels []channel `json:"channels"`
}

func parse(v string) [3]uint64 {
	core := strings.SplitN(v, "+", 2)[0]
	if strings.Contains(core, "-") {
		panic("prerelease versions are not handled: " + v)
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		panic("not major.minor.patch: " + v)
	}
	var out [3]uint64
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			panic(err)
		}
		out[i] = n
	}
	return out
}

func greater(a, b [3]uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}

func main() {
	var in []channel
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		panic(err)
	}
	for i := range in {
		entries := in[i].Entries
		versions := map[string][3]uint64{}
		for _, e := range entries {
			versions[e[0]] = parse(e[1])
		}
		names := make([]string, len(entries))
		for j, e := range entries {
			names[j] = e[0]
		}
		sort.Slice(names, func(x, y int) bool {
			return greater(versions[names[x]], versions[names[y]])
		})
		in[i].Order = names
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(output{Go: runtime.Version(), Channels: in}); err != nil {
		panic(err)
	}
}
