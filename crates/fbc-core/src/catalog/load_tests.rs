use super::*;
use crate::catalog::Node;

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
    let r = read_file(0, &found, &LoadOptions::default(), &Buffers::default());
    assert!(r.docs.is_empty());
    assert!(!r.file.clean);
    assert_eq!(r.diagnostics.len(), 1);
    assert_eq!(
        r.diagnostics[0].to_string(),
        "gone.yaml: error[FBC001]: cannot read file: it disappeared while the catalog was being read"
    );
}

fn real(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/real")).join(name)
}

fn outline() -> LoadOptions {
    LoadOptions {
        keep: Keep::Outline,
        ..LoadOptions::default()
    }
}

/// What a listing reads of a catalog: every object's meta and file, and the values of every
/// object but a bundle's properties and related images.
fn listed(c: &Catalog) -> Vec<String> {
    c.blobs
        .iter()
        .map(|b| {
            let mut v = b.value.clone();
            v.remove_field("properties");
            v.remove_field("relatedImages");
            format!("{} {:?} {}..{} {:?}", b.file, b.meta, b.start, b.end, v)
        })
        .collect()
}

#[test]
fn an_outline_load_finds_what_a_whole_one_does_without_the_bundles_properties() {
    for name in [
        "redhat-openshift-ecosystem__certified-operators__catalogs-v4.18",
        "redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20",
        "operator-framework__operator-registry__index-declcfgs-latest",
        "openshift__cluster-kube-descheduler-operator__fbc-v4.20-catalog",
    ] {
        let whole = load(&real(name)).unwrap();
        let part = load_with(&real(name), &outline()).unwrap();
        assert!(part.is_outline() && !whole.is_outline());
        let problems = |c: &Catalog| {
            c.diagnostics
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(problems(&part), problems(&whole), "{name}");
        assert_eq!(listed(&part), listed(&whole), "{name}");
        let bundles = part.index().packages().flat_map(|p| p.bundles.clone());
        let props = |c: &Catalog, b: usize| {
            c.blob(b)
                .value
                .get("properties")
                .map(|p| p.as_seq().map_or(0, <[Node]>::len))
        };
        let (mut emptied, mut all) = (0, 0);
        for b in bundles {
            all += 1;
            if props(&part, b) == Some(0) && props(&whole, b).is_some_and(|n| n > 0) {
                emptied += 1;
            }
        }
        // JSON catalogs are read whole.
        if name.contains("descheduler") {
            assert!(all > 0 && emptied == 0, "{name}: {emptied} of {all}");
        } else {
            assert!(all >= 10 && emptied == all, "{name}: {emptied} of {all}");
        }
    }
}

#[test]
fn a_problem_inside_a_bundles_properties_is_found_by_an_outline_load() {
    let tmp = tempfile::tempdir().unwrap();
    let good = String::from(
        "schema: olm.bundle\nname: a.v1\npackage: a\nimage: quay.io/a:v1\nproperties:\n- type: olm.package\n  value:\n    packageName: a\n    version: 1.0.0\n",
    );
    let bad_escape = good.replace("version: 1.0.0", "version: \"1.0\\q\"");
    let bad_indent = good.replace("    version: 1.0.0", "   version: 1.0.0");
    let non_finite = good.replace("version: 1.0.0", "version: .inf");
    fs::write(
        tmp.path().join("catalog.yaml"),
        [good.clone(), bad_escape, bad_indent, non_finite].join("---\n"),
    )
    .unwrap();
    let whole = load(tmp.path()).unwrap();
    let part = load_with(tmp.path(), &outline()).unwrap();
    let problems = |c: &Catalog| {
        c.diagnostics
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(problems(&whole).len(), 3, "{:?}", problems(&whole));
    assert_eq!(problems(&part), problems(&whole));
}

#[test]
fn a_catalog_loaded_in_outline_is_never_written() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "schema: olm.bundle\nname: a.v1\npackage: a\nimage: quay.io/a:v1\nproperties:\n- type: olm.package\n  value:\n    packageName: a\n    version: 1.0.0\n";
    let path = tmp.path().join("catalog.yaml");
    fs::write(&path, text).unwrap();
    let mut c = load_with(tmp.path(), &outline()).unwrap();
    c.edit(0, |n| n.set_field("image", Node::string("quay.io/a:v2")));
    let err = c.save().unwrap_err();
    assert!(
        matches!(err, crate::catalog::write::WriteError::Outline { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("never written"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
}

fn checked() -> LoadOptions {
    LoadOptions {
        keep: Keep::Checked,
        check_payloads: true,
        ..LoadOptions::default()
    }
}

/// Everything `fbc-edit validate` reports of the catalog at `dir` loaded with `options`: the
/// diagnostics (every field), with each profile for two OpenShift versions, and opm's wording.
fn validated(dir: &Path, options: &LoadOptions) -> Vec<String> {
    use crate::validate::{self, profile};
    let c = match load_with(dir, options) {
        Ok(c) => c,
        Err(e) => return vec![e.to_string()],
    };
    let report = validate::validate(&c);
    let mut out: Vec<String> = report
        .diagnostics
        .iter()
        .map(|d| format!("{d:?}"))
        .collect();
    for profiles in [
        vec![profile::Profile::Community],
        vec![profile::Profile::Konflux],
    ] {
        for ocp in [(4, 16), (4, 18)] {
            let opts = profile::Options {
                profiles: profiles.clone(),
                ocp: Some(ocp),
                allowed_registries: vec!["quay.io/".to_string()],
            };
            out.extend(profile::check(&c, &opts).iter().map(|d| format!("{d:?}")));
        }
    }
    out.push(validate::opm::render(&c, &report.diagnostics));
    out
}

/// The `olm.csv.metadata` values of a catalog's bundles, and how many are empty.
fn csv_values(c: &Catalog) -> (usize, usize) {
    property_values(c, "olm.csv.metadata")
}

/// The values of a catalog's bundles' properties of type `type_`, and how many are empty.
fn property_values(c: &Catalog, type_: &str) -> (usize, usize) {
    let (mut all, mut empty) = (0, 0);
    for b in &c.blobs {
        let props = b
            .value
            .get("properties")
            .and_then(Node::as_seq)
            .unwrap_or(&[]);
        for p in props {
            if p.get("type").and_then(Node::as_str) == Some(type_) {
                all += 1;
                empty += usize::from(
                    p.get("value")
                        .and_then(Node::as_map)
                        .is_some_and(|m| m.is_empty()),
                );
            }
        }
    }
    (all, empty)
}

/// Every catalog directory of the test data (and of `FBC_VALIDATE_DIFF_DIR`, when it names more).
fn catalog_dirs() -> Vec<PathBuf> {
    let data = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata"));
    let mut parents = vec![data.join("real"), data.join("validate")];
    if let Some(extra) = std::env::var_os("FBC_VALIDATE_DIFF_DIR") {
        parents.push(PathBuf::from(extra));
    }
    let mut dirs = Vec::new();
    for p in parents {
        let mut found: Vec<PathBuf> = fs::read_dir(&p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        found.sort();
        dirs.extend(found);
    }
    dirs
}

#[test]
fn a_checked_load_validates_as_a_whole_one_does() {
    let (mut all, mut emptied) = (0, 0);
    let (mut gvks, mut gvks_emptied) = (0, 0);
    for dir in catalog_dirs() {
        assert_eq!(
            validated(&dir, &checked()),
            validated(&dir, &LoadOptions::default()),
            "{}",
            dir.display()
        );
        if let Ok(c) = load_with(&dir, &checked()) {
            let whole = load(&dir).unwrap();
            let (a, e) = csv_values(&c);
            assert_eq!(
                csv_values(&whole).1,
                0,
                "{}: a whole load keeps every value",
                dir.display()
            );
            let (g, ge) = property_values(&c, "olm.gvk");
            assert_eq!(property_values(&whole, "olm.gvk").1, 0, "{}", dir.display());
            assert!(c.is_outline(), "a checked catalog is never written");
            if dir.parent().is_some_and(|p| p.ends_with("real")) {
                all += a;
                emptied += e;
                gvks += g;
                gvks_emptied += ge;
            }
        }
    }
    // The checked load is there to be used: it leaves out most olm.csv.metadata values of the
    // real catalogs (not those of JSON files, nor those with something validation reads, such as
    // an olm.substitutesFor annotation).
    assert!(
        all > 500 && emptied * 10 >= all * 9,
        "{emptied} of {all} left out"
    );
    // And most olm.gvk values, which validation only checks too.
    assert!(
        gvks > 1000 && gvks_emptied * 10 >= gvks * 9,
        "{gvks_emptied} of {gvks} olm.gvk values left out"
    );
}

#[test]
fn a_csv_metadata_value_with_something_to_report_is_kept() {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/validate/csv-metadata-wrong-types"
    ));
    let c = load_with(dir, &checked()).unwrap();
    // The first bundle's value fits and is left out; the others have mistakes and are kept: a
    // value of the wrong type (a mapping, a string) where nothing else gives it away, then
    // numbers and a `yes`.
    assert_eq!(csv_values(&c), (4, 1));
    let report = crate::validate::validate(&c);
    let lines: Vec<u32> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == crate::validate::codes::PROPERTY)
        .map(|d| d.location.line)
        .collect();
    assert_eq!(lines, [62, 88, 90, 104, 108], "{:#?}", report.diagnostics);
}

/// All a load of the catalog at `dir` on this thread gives, positions included: its files (with
/// their verdicts), objects and problems; and how many files were read in more than one window of
/// `window` bytes (`None`: every file read whole).
fn loaded_in(dir: &Path, options: &LoadOptions, window: Option<usize>) -> (String, usize) {
    let options = LoadOptions {
        threads: 1,
        ..options.clone()
    };
    super::super::reading::test_window::with(window, || match load_with(dir, &options) {
        Ok(c) => format!("{:#?}\n{:#?}\n{:#?}", c.files, c.blobs, c.diagnostics),
        Err(e) => e.to_string(),
    })
}

#[test]
fn a_load_reading_files_in_windows_gives_what_whole_files_give() {
    let mut split = 0;
    for dir in catalog_dirs() {
        for options in [outline(), checked()] {
            let (whole, _) = loaded_in(&dir, &options, None);
            // Windows smaller than most documents (grown to fit each), and larger.
            for window in [64, 1000, 8 << 10, 64 << 10] {
                let (parts, n) = loaded_in(&dir, &options, Some(window));
                assert!(
                    parts == whole,
                    "{} in windows of {window} bytes:\n{}",
                    dir.display(),
                    first_difference(&whole, &parts)
                );
                split += n;
            }
        }
    }
    assert!(split > 250, "only {split} files read in windows");
}

/// The first line where `b` differs from `a`, with the lines before it.
fn first_difference(a: &str, b: &str) -> String {
    let (a, b): (Vec<_>, Vec<_>) = (a.lines().collect(), b.lines().collect());
    let at = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(8);
    format!(
        "whole:\n{}\nin windows:\n{}",
        a[from..(at + 1).min(a.len())].join("\n"),
        b[from..(at + 1).min(b.len())].join("\n")
    )
}

#[test]
fn files_read_in_windows_keep_their_problems_and_payloads_where_a_whole_read_finds_them() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let bundle = |i: usize| {
        format!(
            "schema: olm.bundle\nname: p.v0.{i}.0\npackage: p\nimage: quay.io/p:v{i}\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: 0.{i}.0\n"
        )
    };
    let mut docs = vec!["schema: olm.package\nname: p\n".to_string()];
    docs.extend((1..40).map(bundle));
    let write = |name: &str, text: &[u8]| fs::write(dir.path().join(name), text).unwrap();
    // Separators with text after them, end markers with text ignored after them, a document of
    // comments and one of blank lines, in every window.
    let mut odd = String::from("---\n");
    for (i, d) in docs.iter().enumerate() {
        odd.push_str(d);
        odd.push_str(match i % 4 {
            0 => "--- not allowed\n",
            1 => "...\nignored: text\n---\n",
            2 => "---\n# only a comment\n---\n",
            _ => "---\n\n\n---\n",
        });
    }
    odd.push_str("---");
    write("odd.yaml", odd.as_bytes());
    // A byte that is not UTF-8 far into the file.
    let mut late = docs.join("---\n").into_bytes();
    let at = late.len() - 20;
    late[at] = 0xff;
    write("late.yaml", &late);
    // JSON: a stream, and one behind a byte order mark (YAML to opm).
    let json: Vec<String> = (1..40)
        .map(|i| {
            format!("{{\"schema\": \"olm.bundle\", \"name\": \"j.v{i}\", \"package\": \"j\"}}")
        })
        .collect();
    write("stream.json", json.join("\n").as_bytes());
    write(
        "bom.yaml",
        format!("\u{feff}  {}", json[0].replace("j.v1", &"j".repeat(2000))).as_bytes(),
    );
    // A document larger than any window, and payloads left on disk, some not base64.
    let data = base64::engine::general_purpose::STANDARD.encode("k: v\n".repeat(2000));
    let mut payloads = docs.join("---\n");
    for (i, data) in [data.clone(), format!("{data}!"), data.clone()]
        .iter()
        .enumerate()
    {
        payloads.push_str(&format!(
            "---\nschema: olm.bundle\nname: q.v{i}\npackage: q\nproperties:\n- type: olm.bundle.object\n  value:\n    data: {data}\n"
        ));
    }
    write("payloads.yaml", payloads.as_bytes());
    // An alias repeating a long string, after the first window: the full reader reads it.
    let anchored = format!(
        "{}---\nschema: olm.bundle\nname: a.v1\npackage: a\nproperties:\n- type: olm.bundle.object\n  value: &v\n    data: {data}\n- type: olm.bundle.object\n  value: *v\n",
        docs.join("---\n")
    );
    write("anchors.yaml", anchored.as_bytes());
    // Line ends of two bytes, and YAML behind a byte order mark.
    write(
        "crlf.yaml",
        docs.join("---\n").replace('\n', "\r\n").as_bytes(),
    );
    write(
        "bom-yaml.yaml",
        format!("\u{feff}{}", docs.join("---\n")).as_bytes(),
    );
    // Large enough for windows of 100 KiB, each parsed on every core.
    let many: Vec<String> = (0..3000).map(bundle).collect();
    write("many.yaml", many.join("---\n").as_bytes());
    let (whole, _) = loaded_in(dir.path(), &checked(), None);
    assert!(whole.contains("invalid UTF-8 byte 0xff"), "{whole}");
    assert!(whole.contains("invalid Yaml document separator: not allowed"));
    assert!(whole.contains("text after the `...` document end marker is ignored"));
    assert!(whole.contains("\"a.v1\""), "{whole}");
    for options in [outline(), checked()] {
        let (whole, _) = loaded_in(dir.path(), &options, None);
        for window in [16, 100, 700, 4000, 100 << 10] {
            let (parts, split) = loaded_in(dir.path(), &options, Some(window));
            assert!(
                parts == whole,
                "windows of {window} bytes:\n{}",
                first_difference(&whole, &parts)
            );
            // The YAML files larger than a window (late.yaml until its bad byte is met, after
            // which it is read whole again; JSON is read whole).
            let expected = if window > 4000 { 1 } else { 7 };
            assert_eq!(split, expected, "windows of {window} bytes");
        }
    }
}
