// Command generator records how Go's sort.Slice orders slices whose keys repeat, so that
// fbc-edit's reimplementation (src/text/gosort.rs) can be checked against it.
//
// Every case is a list of integer keys; the slice sorted holds the positions 0..n-1 and is ordered
// by key alone, so equal keys show where the algorithm put them. For each case it prints the keys,
// the positions in the order sort.Slice left them, and how many times it called less.
//
// Run: go run main.go > ../go1.NN.json (see ../README.md for the versions used).
package main

import (
	"encoding/json"
	"math/rand"
	"os"
	"runtime"
	"sort"
)

type record struct {
	Pattern string `json:"pattern"`
	Keys    []int  `json:"keys"`
	Order   []int  `json:"order"`
	Less    int    `json:"less"`
}

type output struct {
	Go    string   `json:"go"`
	Cases []record `json:"cases"`
}

func sorted(keys []int) ([]int, int) {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	calls := 0
	sort.Slice(order, func(i, j int) bool {
		calls++
		return keys[order[i]] < keys[order[j]]
	})
	return order, calls
}

func main() {
	rng := rand.New(rand.NewSource(20260127))
	var sizes []int
	for n := 0; n <= 40; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 48, 49, 50, 51, 52, 60, 64, 80, 100, 127, 128, 129, 150, 200, 255, 256, 300)

	patterns := []struct {
		name string
		make func(n int) []int
	}{
		{"few", func(n int) []int { // two to four distinct keys, at random
			k := 2 + rng.Intn(3)
			out := make([]int, n)
			for i := range out {
				out[i] = rng.Intn(k)
			}
			return out
		}},
		{"many", func(n int) []int { // keys repeat about twice
			out := make([]int, n)
			for i := range out {
				out[i] = rng.Intn(n/2 + 1)
			}
			return out
		}},
		{"sorted", func(n int) []int { // ascending, each key three times
			out := make([]int, n)
			for i := range out {
				out[i] = i / 3
			}
			return out
		}},
		{"reversed", func(n int) []int { // descending, each key three times
			out := make([]int, n)
			for i := range out {
				out[i] = (n - i) / 3
			}
			return out
		}},
		{"reversed-distinct", func(n int) []int {
			out := make([]int, n)
			for i := range out {
				out[i] = n - i
			}
			return out
		}},
		{"equal", func(n int) []int { return make([]int, n) }},
		{"organ", func(n int) []int { // up then down, keys shared by both slopes
			out := make([]int, n)
			for i := range out {
				if i < n/2 {
					out[i] = i
				} else {
					out[i] = n - i
				}
			}
			return out
		}},
		{"saw", func(n int) []int { // repeated runs 0..7
			out := make([]int, n)
			for i := range out {
				out[i] = i % 8
			}
			return out
		}},
		{"nearly-sorted", func(n int) []int { // ascending with dups, a few pairs swapped
			out := make([]int, n)
			for i := range out {
				out[i] = i / 2
			}
			for s := 0; s < 3 && n > 1; s++ {
				a, b := rng.Intn(n), rng.Intn(n)
				out[a], out[b] = out[b], out[a]
			}
			return out
		}},
	}

	out := output{Go: runtime.Version()}
	for _, n := range sizes {
		for _, p := range patterns {
			keys := p.make(n)
			order, calls := sorted(keys)
			out.Cases = append(out.Cases, record{p.name, keys, order, calls})
		}
	}
	// Inputs that use up the bad-pivot budget, so the range is heap-sorted. They were found by
	// searching random keys (with repeats) for the most unbalanced partitions; the first three
	// do it under Go 1.19 to 1.23, the last three under Go 1.24 and later.
	for _, keys := range heapCases {
		order, calls := sorted(keys)
		out.Cases = append(out.Cases, record{"heap", keys, order, calls})
	}

	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}

var heapCases = [][]int{
	{5, 4, 2, 3, 3, 3, 0, 0, 2, 1, 2, 2, 0, 3, 5, 5, 4, 5, 3, 1, 5, 0, 4, 5},
	{6, 9, 8, 8, 9, 3, 7, 1, 5, 7, 1, 1, 8, 8, 2, 1, 3, 5, 0, 0, 3, 8, 8, 9, 8, 6, 0, 4, 3, 7, 1, 2, 7, 4, 8, 2, 2, 7, 1, 6, 2, 4, 8, 6, 5, 6, 5, 1, 8, 9, 8, 8, 8, 0, 0, 5, 2, 2, 3, 2, 4, 8, 1, 3},
	{1, 8, 0, 11, 0, 8, 1, 10, 2, 6, 2, 3, 11, 6, 8, 8, 10, 2, 10, 11, 4, 4, 11, 1, 11, 4, 4, 3, 3, 11, 4, 1, 2, 3, 7, 5, 8, 2, 1, 5, 0, 9, 2, 9, 5, 11, 9, 3, 7, 9, 10, 1, 7, 11, 10, 9, 8, 5, 11, 11, 9, 7, 9, 5, 7, 10, 5, 8, 1, 10, 7, 8, 4, 9, 0, 7, 10, 9, 0, 11, 8, 6, 10, 9, 0, 1, 5, 11, 10, 11, 5, 2, 0, 11, 2, 6, 6, 7, 7, 0},
	{3, 2, 5, 4, 4, 4, 1, 3, 4, 2, 4, 1, 1, 1, 2, 3, 4, 2, 5, 4, 3, 3, 3, 3},
	{3, 4, 3, 4, 6, 5, 4, 2, 3, 2, 0, 5, 4, 5, 0, 4, 1, 1, 2, 4, 0, 5, 1, 7, 6, 7, 4, 0, 6, 2, 4, 5, 2, 1, 4, 0, 3, 3, 2, 7},
	{2, 8, 11, 11, 10, 8, 2, 11, 3, 0, 4, 7, 8, 9, 10, 11, 2, 6, 5, 11, 6, 8, 3, 8, 3, 0, 1, 9, 6, 10, 11, 3, 3, 3, 10, 3, 5, 1, 8, 8, 10, 8, 3, 4, 7, 5, 11, 8, 8, 5, 2, 10, 0, 2, 11, 5, 7, 11, 5, 1, 6, 9, 9, 9, 7, 2, 10, 11, 11, 6, 6, 3, 10, 3, 1, 8, 10, 7, 8, 3, 1, 10, 4, 3, 0, 5, 11, 8, 6, 7, 8, 9, 0, 4, 3, 4, 11, 3, 11, 0},
}
