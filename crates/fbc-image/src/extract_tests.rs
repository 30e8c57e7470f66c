use super::*;

fn layer(entries: &[(&str, Option<&str>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, content) in entries {
        let mut h = tar::Header::new_gnu();
        match content {
            Some(c) => {
                h.set_entry_type(tar::EntryType::Regular);
                h.set_size(c.len() as u64);
                h.set_mode(0o644);
                b.append_data(&mut h, path, c.as_bytes()).unwrap();
            }
            None => {
                h.set_entry_type(tar::EntryType::Directory);
                h.set_size(0);
                h.set_mode(0o755);
                b.append_data(&mut h, path, &b""[..]).unwrap();
            }
        }
    }
    b.into_inner().unwrap()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn tree(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in walk(root) {
        let rel = e.strip_prefix(root).unwrap().display().to_string();
        if e.is_file() {
            out.push(format!("{rel}={}", fs::read_to_string(&e).unwrap()));
        } else {
            out.push(format!("{rel}/"));
        }
    }
    out.sort();
    out
}

fn walk(p: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(p).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

fn configs(root: &Path) -> Extractor {
    configs_within(root, Limits::default())
}

fn configs_within(root: &Path, limits: Limits) -> Extractor {
    Extractor::new(
        root,
        vec![Wanted {
            image: vec!["configs".into()],
            local: PathBuf::new(),
        }],
        limits,
    )
}

use crate::tarball::tests::entry;

#[test]
fn layers_apply_in_order_with_whiteouts_and_only_the_wanted_directory() {
    let dir = tempfile::tempdir().unwrap();
    let mut x = configs(dir.path());
    let first = layer(&[
        ("bin/opm", Some("binary")),
        ("configs/", None),
        ("configs/a/catalog.yaml", Some("a1")),
        ("configs/b/catalog.yaml", Some("b1")),
        ("configs/c/old.yaml", Some("c1")),
    ]);
    x.apply_layer(&mut &gzip(&first)[..]).unwrap();
    let second = layer(&[
        ("./configs/a/catalog.yaml", Some("a2")),
        ("configs/b/.wh.catalog.yaml", Some("")),
        ("configs/c/.wh..wh..opq", Some("")),
        ("configs/c/new.yaml", Some("c2")),
        ("etc/.wh.passwd", Some("")),
    ]);
    x.apply_layer(&mut &second[..]).unwrap();
    assert!(x.found);
    assert_eq!(
        tree(dir.path()),
        ["a/", "a/catalog.yaml=a2", "b/", "c/", "c/new.yaml=c2"]
    );
}

#[test]
fn a_whiteout_of_the_wanted_directory_itself_empties_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut x = configs(dir.path());
    x.apply_layer(&mut &layer(&[("configs/a.yaml", Some("1"))])[..])
        .unwrap();
    x.apply_layer(&mut &layer(&[(".wh.configs", Some("")), ("configs/b.yaml", Some("2"))])[..])
        .unwrap();
    assert_eq!(tree(dir.path()), ["b.yaml=2"]);
    x.apply_layer(&mut &layer(&[(".wh..wh..opq", Some(""))])[..])
        .unwrap();
    assert!(tree(dir.path()).is_empty());
}

#[test]
fn paths_that_climb_out_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir(&root).unwrap();
    let mut x = configs(&root);
    // tar::Builder refuses `..`; write the name into the header by hand.
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Regular);
    h.set_size(1);
    h.as_gnu_mut().unwrap().name[..20].copy_from_slice(b"configs/../../escape");
    h.set_cksum();
    let mut b = tar::Builder::new(Vec::new());
    b.append(&h, &b"x"[..]).unwrap();
    let data = b.into_inner().unwrap();
    x.apply_layer(&mut &data[..]).unwrap();
    assert!(!dir.path().join("escape").exists());
    assert_eq!(x.skipped.kept.len(), 1, "{:?}", x.skipped);
    assert!(tree(&root).is_empty());
}

#[test]
fn a_whiteout_naming_the_directory_above_is_not_applied() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir(&root).unwrap();
    let mut x = configs(&root);
    x.apply_layer(&mut &layer(&[("configs/a.yaml", Some("1"))])[..])
        .unwrap();
    let mut bad = entry(b"configs/.wh...", b'0', b"", b"");
    bad.extend(entry(b"configs/.wh..", b'0', b"", b""));
    bad.extend(entry(b"configs/.wh.", b'0', b"", b""));
    x.apply_layer(&mut &bad[..]).unwrap();
    assert!(root.is_dir());
    assert_eq!(tree(&root), ["a.yaml=1"]);
    assert_eq!(x.skipped.kept.len(), 3, "{:?}", x.skipped);
    assert!(
        x.skipped.kept[0].contains("climbs out"),
        "{:?}",
        x.skipped.kept
    );
}

#[test]
fn bytes_and_files_written_stay_within_their_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits::default().with(Limit::ExtractBytes, 10);
    let mut x = configs_within(dir.path(), limits);
    let err = x
        .apply_layer(
            &mut &layer(&[("configs/a", Some("123456")), ("configs/b", Some("123456"))])[..],
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("extract-bytes budget, 10 bytes"),
        "{err}"
    );
    // Hard links cost a name, not their bytes; writing over one leaves the other as it was.
    let dir = tempfile::tempdir().unwrap();
    let mut x = configs_within(dir.path(), limits);
    let mut links = entry(b"configs/a", b'0', b"123456", b"");
    for i in 0..100 {
        links.extend(entry(
            format!("configs/b{i}").as_bytes(),
            b'1',
            b"",
            b"configs/a",
        ));
    }
    links.extend(entry(b"configs/b7", b'0', b"new", b""));
    x.apply_layer(&mut &links[..]).unwrap();
    assert_eq!(fs::read_to_string(dir.path().join("b3")).unwrap(), "123456");
    assert_eq!(fs::read_to_string(dir.path().join("b7")).unwrap(), "new");
    assert_eq!(fs::read_to_string(dir.path().join("a")).unwrap(), "123456");
    let dir = tempfile::tempdir().unwrap();
    let mut x = configs_within(dir.path(), Limits::default().with(Limit::ExtractFiles, 3));
    let err = x
        .apply_layer(&mut &layer(&[("configs/a/b/c/d", Some("1"))])[..])
        .unwrap_err();
    assert!(err.to_string().contains("extract-files"), "{err}");
}

#[test]
fn notes_keep_the_first_few_and_count_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut x = configs_within(dir.path(), Limits::default().with(Limit::Notes, 2));
    let mut links = Vec::new();
    for i in 0..5 {
        let name = format!("configs/{}{i}", "l".repeat(200));
        links.extend(entry(name.as_bytes(), b'2', b"", b"/etc/passwd"));
    }
    x.apply_layer(&mut &links[..]).unwrap();
    let lines = x.skipped.lines();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].len() < 300, "{}", lines[0]);
    assert_eq!(
        lines[2],
        "… and 3 more entries (only the first 2 are listed)"
    );
}
