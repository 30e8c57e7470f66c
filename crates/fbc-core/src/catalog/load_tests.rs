use super::*;

fn walked(root: &Path, max_entries: usize) -> (Vec<Found>, Vec<Diagnostic>) {
    let (mut files, mut ignores, mut seen, mut diags) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let canonical = fs::canonicalize(root).unwrap();
    let mut w = Walk {
        canonical_root: &canonical,
        files: &mut files,
        ignores: &mut ignores,
        seen: &mut seen,
        diags: &mut diags,
        max_entries,
        listed: 0,
        full: false,
    };
    w.walk(root, "", 0);
    (files, diags)
}

#[test]
fn a_tree_nested_past_the_depth_limit_is_reported_and_the_rest_read() {
    let tmp = tempfile::tempdir().unwrap();
    let mut deep = tmp.path().to_path_buf();
    for _ in 0..=MAX_DEPTH + 1 {
        deep.push("d");
    }
    fs::create_dir_all(&deep).unwrap();
    fs::write(deep.join("lost.json"), "{}").unwrap();
    fs::write(tmp.path().join("kept.json"), "{}").unwrap();
    let (files, diags) = walked(tmp.path(), MAX_ENTRIES);
    let names: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    assert_eq!(names, ["kept.json"]);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(
        diags[0]
            .to_string()
            .contains("nested more than 64 levels deep"),
        "{}",
        diags[0]
    );
}

#[test]
fn a_tree_with_too_many_entries_is_cut_once_with_one_problem() {
    let tmp = tempfile::tempdir().unwrap();
    for d in ["a", "b", "c"] {
        fs::create_dir(tmp.path().join(d)).unwrap();
        for f in 0..4 {
            fs::write(tmp.path().join(d).join(format!("{f}.json")), "{}").unwrap();
        }
    }
    let (files, diags) = walked(tmp.path(), 8);
    // a, b and c, then a's 4 files: b would make 9, so nothing of b or c is read.
    let names: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    assert_eq!(names, ["a/0.json", "a/1.json", "a/2.json", "a/3.json"]);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(
        diags[0]
            .to_string()
            .contains("more than 8 files and directories")
    );
}

#[test]
fn a_file_that_vanishes_during_the_walk_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let found = Found {
        rel: "gone.yaml".into(),
        abs: tmp.path().join("gone.yaml"),
    };
    let r = read_file(0, &found, false, &Buffers::default());
    assert!(r.docs.is_empty());
    assert!(!r.file.clean);
    assert_eq!(r.diagnostics.len(), 1);
    assert_eq!(
        r.diagnostics[0].to_string(),
        "gone.yaml: error[FBC001]: cannot read file: it disappeared while the catalog was being read"
    );
}
