//! Plain-text helpers that know nothing about catalogs: writing strings quoted in the dialects the
//! catalog tools speak (Go's JSON and `%q`, YAML, Graphviz DOT), Go's base64 decoding, the
//! Kubernetes name rule, scanning JSON text fast, Go's unstable sort (the order opm leaves equal
//! elements in), finding lines by byte offset, changing a text by
//! byte ranges, and counting things in words (`1 error`, `2 errors`). Every other module may use
//! this one; it uses none of them.

pub mod dns1123;
pub mod escape;
pub mod go_base64;
pub mod gosort;
pub mod json_scan;
pub mod lines;
pub mod splice;

/// A count and the word for what is counted, singular for one: `1 error`, `0 errors`, `2 errors`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(super::plural(1, "error", "errors"), "1 error");
        assert_eq!(super::plural(0, "error", "errors"), "0 errors");
        assert_eq!(super::plural(2, "bundle", "bundles"), "2 bundles");
    }
}
