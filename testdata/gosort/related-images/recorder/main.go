package main

import (
	"encoding/json"
	"os"
	"sort"
)

type R struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

func main() {
	var lists [][]R
	if err := json.NewDecoder(os.Stdin).Decode(&lists); err != nil {
		panic(err)
	}
	out := make([][]string, 0, len(lists))
	for _, l := range lists {
		sort.Slice(l, func(i, j int) bool { return l[i].Image < l[j].Image })
		names := make([]string, 0, len(l))
		for _, r := range l {
			names = append(names, r.Name)
		}
		out = append(out, names)
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
