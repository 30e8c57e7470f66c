//! Drawing part of a graph (`graph --minimum-edge`, `--from`/`--to`) and what a skipRange prunes,
//! as `graph` and `edit set-skip-range` show it.

use std::path::PathBuf;

use assert_cmd::Command;

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog")
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn graph(extra: &[&str]) -> (i32, String, String) {
    let d = demo();
    let mut args = vec!["graph", d.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn minimum_edge_draws_what_opm_draws() {
    let (code, out, _) = graph(&["-f", "mermaid", "--minimum-edge", "cache-operator.v1.1.0"]);
    assert_eq!(code, 0);
    // Only the package of the floor bundle.
    assert!(out.contains("  %% package \"cache-operator\"\n"), "{out}");
    assert!(!out.contains("backup-operator"), "{out}");
    // The floor entry without its links; the entry below the floor (1.0.0) left out.
    assert!(
        out.contains("      cache-operator-stable-cache-operator.v1.1.0[\"cache-operator.v1.1.0\"]\n    end\n"),
        "{out}"
    );
    assert!(!out.contains("cache-operator.v1.0.0"), "{out}");
    // Links from the floor up stay, the skipRange (it contains 1.1.0) too, drawn from kept
    // entries only.
    assert!(out.contains("cache-operator-stable-cache-operator.v1.1.0[\"cache-operator.v1.1.0\"]-- replace --> cache-operator-stable-cache-operator.v1.2.0[\"cache-operator.v1.2.0\"]"), "{out}");
    assert_eq!(out.matches("skipRange(>=1.0.0 <1.3.0)").count(), 3, "{out}");
}

#[test]
fn an_unknown_minimum_edge_is_refused_with_opms_words() {
    let (code, out, err) = graph(&["-f", "mermaid", "--minimum-edge", "nope.v1"]);
    assert_eq!(code, 2);
    assert_eq!(out, "");
    assert_eq!(err, "fbc-edit: unknown minimum edge name: \"nope.v1\"\n");
}

#[test]
fn a_version_window_draws_the_entries_in_it_and_their_links() {
    let (code, out, _) = graph(&[
        "-p",
        "cache-operator",
        "-c",
        "stable",
        "--from",
        "1.1.0",
        "--to",
        "v1.2.1",
        "-f",
        "dot",
    ]);
    assert_eq!(code, 0);
    let edges: Vec<&str> = out.lines().filter(|l| l.contains(" -> ")).collect();
    assert_eq!(
        edges,
        vec![
            "      \"cache-operator/stable/cache-operator.v1.1.0\" -> \"cache-operator/stable/cache-operator.v1.2.0\" [label=\"replaces\"];",
            "      \"cache-operator/stable/cache-operator.v1.2.0\" -> \"cache-operator/stable/cache-operator.v1.2.1\" [label=\"replaces\"];",
        ]
    );
    // Marks are the whole channel's: 1.2.1 is skipped by the head, which is not drawn.
    assert!(
        out.contains("\"cache-operator/stable/cache-operator.v1.2.1\" [label=\"cache-operator.v1.2.1\\n1.2.1\", style=\"rounded,dashed\"]"),
        "{out}"
    );
    let (code, _, err) = graph(&["--from", "one"]);
    assert_eq!(code, 2);
    assert!(err.contains("--from \"one\" is not a version"), "{err}");
}

#[test]
fn the_lanes_say_what_a_skip_range_prunes() {
    let (code, out, _) = graph(&["-p", "cache-operator", "-c", "stable"]);
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "[head]  · skipRange \">=1.0.0 <1.3.0\" matches 4, prunes 1 (cache-operator.v1.2.1)"
        ),
        "{out}"
    );
}

#[test]
fn set_skip_range_says_what_the_range_matches_and_prunes() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("c");
    let copy = |from: &std::path::Path, to: &std::path::Path| {
        for e in walk(from) {
            let rel = e.strip_prefix(from).unwrap();
            std::fs::create_dir_all(to.join(rel).parent().unwrap()).unwrap();
            std::fs::copy(&e, to.join(rel)).unwrap();
        }
    };
    copy(&demo(), &d);
    let (code, _, err) = run(&[
        "edit",
        d.to_str().unwrap(),
        "set-skip-range",
        "-p",
        "cache-operator",
        "-c",
        "stable",
        "-e",
        "cache-operator.v1.3.0",
        "--range",
        ">=1.1.0 <1.3.0",
        "--dry-run",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("skipRange \">=1.1.0 <1.3.0\" matches 3 entries of cache-operator/stable: cache-operator.v1.2.1, cache-operator.v1.2.0, cache-operator.v1.1.0\nof those, OLM v0 prunes 1 (skipped or stranded: clusters on them still upgrade, nobody can install them): cache-operator.v1.2.1\n"),
        "{err}"
    );
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
