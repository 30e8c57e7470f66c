//! Write-back fidelity over real catalogs: a save with no edits changes nothing, and adding one channel
//! entry changes only the lines that hold it (plus a comma in JSON).

use crate::common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use fbc_core::catalog::model::Channel;
use fbc_core::catalog::{Catalog, Format, Kind, Node, load};

/// Every catalog directory we round-trip: the demo plus the real catalogs in testdata/real.
fn catalogs() -> Vec<PathBuf> {
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(common::real_root())
        .expect("testdata/real")
        .map(|e| e.expect("testdata/real").path())
        .filter(|p| p.is_dir())
        .collect();
    assert!(!more.is_empty(), "testdata/real holds no catalogs");
    more.sort();
    dirs.extend(more);
    dirs
}

#[test]
fn saving_without_edits_changes_no_byte() {
    let mut checked = 0;
    for dir in catalogs() {
        let catalog = load(&dir).unwrap();
        assert!(
            catalog.pending_changes().unwrap().is_empty(),
            "{}",
            dir.display()
        );
        for (f, file) in catalog.files.iter().enumerate() {
            if !file.clean {
                continue;
            }
            let original = std::fs::read_to_string(&file.abs).unwrap();
            assert_eq!(
                catalog.render_file(f).unwrap(),
                original,
                "{} changed",
                file.path
            );
            checked += 1;
        }
    }
    assert!(checked > 300, "only {checked} files checked");
}

#[test]
fn save_with_no_edits_writes_nothing_and_keeps_mtimes() {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog");
    copy_dir(&src, tmp.path());
    let mut catalog = load(tmp.path()).unwrap();
    let before: Vec<_> = catalog.files.iter().map(|f| f.modified).collect();
    let report = catalog.save().unwrap();
    assert!(report.written.is_empty());
    let after: Vec<_> = catalog.files.iter().map(|f| f.modified).collect();
    assert_eq!(before, after);
}

/// Appends an entry to the first channel of the first package that has one; returns the channel's file.
fn add_entry(catalog: &mut Catalog) -> Option<(usize, String)> {
    let (pkg, ch_blob) = catalog
        .index()
        .packages()
        .find_map(|p| p.channels.first().map(|&c| (p.name.clone(), c)))?;
    let head = {
        let ch = Channel::read(&catalog.blob(ch_blob).value).ok()?;
        fbc_core::graph::heads(&ch.entries)
            .first()
            .map(|h| h.to_string())?
    };
    let name = format!("{pkg}.v99.0.0-added");
    let entry = Node::map(vec![
        ("name", Node::string(name.as_str())),
        ("replaces", Node::string(head.as_str())),
    ]);
    catalog.edit(ch_blob, |n| {
        n.get_field_mut("entries")
            .and_then(|e| e.as_seq_mut())
            .expect("entries")
            .push(entry)
    });
    Some((catalog.blob(ch_blob).file, name))
}

#[test]
fn adding_an_entry_changes_only_its_lines() {
    let mut checked = 0;
    for dir in catalogs() {
        let mut catalog = load(&dir).unwrap();
        let Some((file, name)) = add_entry(&mut catalog) else {
            continue;
        };
        let changes = catalog.pending_changes().unwrap();
        assert_eq!(changes.len(), 1, "{}", dir.display());
        let (f, old, new) = &changes[0];
        assert_eq!(*f, file);
        let diff = similar::TextDiff::from_lines(old.as_str(), new.as_str());
        let mut removed = Vec::new();
        let mut added = Vec::new();
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Delete => removed.push(change.value().to_string()),
                similar::ChangeTag::Insert => added.push(change.value().to_string()),
                similar::ChangeTag::Equal => {}
            }
        }
        let json = catalog.files[file].format == Some(Format::Json);
        let path = &catalog.files[file].path;
        if json {
            // At most the closing brace of the previous entry gains a comma (a line diff may also show
            // it as `},` + `{` inserted before the old closing brace).
            assert!(removed.len() <= 1, "{path}: {removed:?}");
            if let Some(r) = removed.first() {
                assert_eq!(
                    format!("{},\n", r.trim_end_matches('\n')),
                    added[0],
                    "{path}"
                );
            } else {
                assert_eq!(added[0].trim(), "},", "{path}");
            }
            assert_eq!(added.len(), 4 + removed.len(), "{path}: {added:?}");
        } else if old.ends_with('\n') {
            assert!(removed.is_empty(), "{path}: removed {removed:?}");
            assert_eq!(added.len(), 2, "{path}: {added:?}");
        } else {
            // A file without a final newline: its last line gains one, nothing else changes.
            assert_eq!(removed.len(), 1, "{path}: removed {removed:?}");
            assert_eq!(format!("{}\n", removed[0]), added[0], "{path}");
            assert_eq!(added.len(), 3, "{path}: {added:?}");
        }
        assert!(added.iter().any(|l| l.contains(&name)), "{path}");
        // The result reads back with the new entry and nothing else changed.
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("x"), new).unwrap();
        let reread = load(tmp.path()).unwrap();
        let original_docs: Vec<serde_json::Value> = catalog.files[file]
            .blobs
            .iter()
            .map(|&b| catalog.to_json(&catalog.blob(b).value).unwrap())
            .collect();
        let reread_docs: Vec<serde_json::Value> = reread
            .blobs
            .iter()
            .map(|b| reread.to_json(&b.value).unwrap())
            .collect();
        assert!(
            original_docs == reread_docs,
            "{path}: content differs after reload"
        );
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} catalogs checked");
}

#[test]
fn yaml_edits_keep_comments_indentation_and_quoting() {
    let text = "\
# Channel for the stable stream
schema: olm.channel
package: demo   # the package
name: 'stable'
entries:
    -   name: demo.v1.0.0
    # 1.1 fixes the upgrade
    -   name: demo.v1.1.0
        replaces: demo.v1.0.0
        skipRange: \">=0.9.0 <1.1.0\"
";
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("c.yaml"), text).unwrap();
    let mut catalog = load(tmp.path()).unwrap();
    catalog.edit(0, |n| {
        let entries = n.get_field_mut("entries").unwrap().as_seq_mut().unwrap();
        entries[1].set_field("skipRange", Node::string(">=0.9.0 <1.2.0"));
        entries.push(Node::map(vec![
            ("name", Node::string("demo.v1.2.0")),
            ("replaces", Node::string("demo.v1.1.0")),
            (
                "skips",
                Node::seq(vec![Node::string("yes"), Node::string("1.10")]),
            ),
        ]));
    });
    let out = catalog.render_file(0).unwrap();
    assert_eq!(
        out,
        "\
# Channel for the stable stream
schema: olm.channel
package: demo   # the package
name: 'stable'
entries:
    -   name: demo.v1.0.0
    # 1.1 fixes the upgrade
    -   name: demo.v1.1.0
        replaces: demo.v1.0.0
        skipRange: \">=0.9.0 <1.2.0\"
    - name: demo.v1.2.0
      replaces: demo.v1.1.0
      skips:
          - \"yes\"
          - \"1.10\"
"
    );
}

#[test]
fn removing_and_adding_blobs() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "---\nschema: olm.package\nname: demo\ndefaultChannel: stable\n---\nschema: acme.note\npackage: demo\n---\nschema: olm.channel\npackage: demo\nname: stable\nentries:\n- name: demo.v1.0.0\n";
    std::fs::write(tmp.path().join("catalog.yaml"), text).unwrap();
    let mut catalog = load(tmp.path()).unwrap();
    catalog.remove_blob(1);
    catalog
        .add_blob(Node::map(vec![
            ("schema", Node::string("olm.channel")),
            ("package", Node::string("demo")),
            ("name", Node::string("fast")),
            (
                "entries",
                Node::seq(vec![Node::map(vec![("name", Node::string("demo.v1.0.0"))])]),
            ),
        ]))
        .unwrap();
    assert_eq!(
        catalog.render_file(0).unwrap(),
        "---\nschema: olm.package\nname: demo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: demo\nname: stable\nentries:\n- name: demo.v1.0.0\n---\nschema: olm.channel\npackage: demo\nname: fast\nentries:\n- name: demo.v1.0.0\n"
    );
    let report = catalog.save().unwrap();
    assert_eq!(report.written, vec!["catalog.yaml".to_string()]);
    assert_eq!(catalog.index().package("demo").unwrap().channels.len(), 2);
    assert!(matches!(
        catalog.blob(0).value.get("schema").unwrap().kind,
        Kind::String(_)
    ));
}

/// A one-package JSON catalog in `tmp`, loaded and its default channel edited (not saved yet):
/// the file's path and the catalog.
fn edited_package(tmp: &Path) -> (PathBuf, Catalog) {
    let path = tmp.join("catalog.json");
    std::fs::write(
        &path,
        "{\"schema\":\"olm.package\",\"name\":\"demo\",\"defaultChannel\":\"a\"}\n",
    )
    .unwrap();
    let mut catalog = load(tmp).unwrap();
    catalog.edit(0, |n| n.set_field("defaultChannel", Node::string("b")));
    (path, catalog)
}

#[test]
fn save_refuses_when_the_file_changed_on_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let (path, mut catalog) = edited_package(tmp.path());
    std::fs::write(
        &path,
        "{\"schema\":\"olm.package\",\"name\":\"demo\",\"defaultChannel\":\"c\"}\n",
    )
    .unwrap();
    let err = catalog.save().unwrap_err();
    assert!(err.to_string().contains("changed on disk"), "{err}");
    assert!(std::fs::read_to_string(&path).unwrap().contains("\"c\""));
}

/// A file swapped for one larger than any catalog file may be (a sparse one costs nothing to
/// make) before the save is refused without being read into memory: its size is checked when it
/// is opened to compare it with what was loaded.
#[test]
fn save_refuses_a_file_grown_past_the_limit_without_reading_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (path, mut catalog) = edited_package(tmp.path());
    let huge = fbc_core::catalog::load::MAX_FILE * 2;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(huge)
        .unwrap();
    let err = catalog.save().unwrap_err();
    assert!(err.to_string().contains("not read"), "{err}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), huge);
}

#[cfg(unix)]
#[test]
fn save_is_atomic_and_keeps_the_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("catalog.json");
    std::fs::write(
        &path,
        "{\n    \"schema\": \"olm.package\",\n    \"name\": \"demo\",\n    \"defaultChannel\": \"a\"\n}\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let mut catalog = load(tmp.path()).unwrap();
    catalog.edit(0, |n| n.set_field("defaultChannel", Node::string("b")));
    catalog.save().unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n    \"schema\": \"olm.package\",\n    \"name\": \"demo\",\n    \"defaultChannel\": \"b\"\n}\n"
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
}

/// Loads `text` as one file, applies `f` to its first blob and returns the text a save would write.
fn edit_text(name: &str, text: &str, f: impl FnOnce(&mut Node)) -> String {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join(name), text).unwrap();
    let mut catalog = load(tmp.path()).unwrap();
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
    catalog.edit(0, f);
    catalog.render_file(0).unwrap()
}

#[test]
fn crlf_files_keep_crlf() {
    let out = edit_text(
        "c.yaml",
        "schema: olm.channel\r\npackage: p\r\nname: s\r\nentries:\r\n- name: a\r\n",
        |n| {
            n.get_field_mut("entries")
                .and_then(Node::as_seq_mut)
                .unwrap()
                .push(Node::map(vec![("name", Node::string("b"))]))
        },
    );
    assert_eq!(
        out,
        "schema: olm.channel\r\npackage: p\r\nname: s\r\nentries:\r\n- name: a\r\n- name: b\r\n"
    );
}

#[test]
fn block_scalars_and_flow_collections_are_replaced_cleanly() {
    let text = "schema: olm.package\nname: p\ndescription: |\n  old text\n  second line\nskips: []\ndefaultChannel: stable\n";
    let out = edit_text("p.yaml", text, |n| {
        n.set_field("description", Node::string("new text\n"));
        n.set_field("skips", Node::seq(vec![Node::string("a")]));
    });
    assert_eq!(
        out,
        "schema: olm.package\nname: p\ndescription: |\n  new text\nskips:\n- a\ndefaultChannel: stable\n"
    );
}

#[test]
fn json_keeps_its_own_indentation_and_compactness() {
    let two = "{\n  \"schema\": \"olm.channel\",\n  \"package\": \"p\",\n  \"name\": \"s\",\n  \"entries\": [\n    {\n      \"name\": \"a\"\n    }\n  ]\n}\n";
    let push_b = |n: &mut Node| {
        n.get_field_mut("entries")
            .and_then(Node::as_seq_mut)
            .unwrap()
            .push(Node::map(vec![
                ("name", Node::string("b")),
                ("replaces", Node::string("a")),
            ]))
    };
    assert_eq!(
        edit_text("c.json", two, push_b),
        "{\n  \"schema\": \"olm.channel\",\n  \"package\": \"p\",\n  \"name\": \"s\",\n  \"entries\": [\n    {\n      \"name\": \"a\"\n    },\n    {\n      \"name\": \"b\",\n      \"replaces\": \"a\"\n    }\n  ]\n}\n"
    );
    let compact = "{\"schema\":\"olm.channel\",\"package\":\"p\",\"name\":\"s\",\"entries\":[{\"name\":\"a\"}]}\n";
    assert_eq!(
        edit_text("c.json", compact, push_b),
        "{\"schema\":\"olm.channel\",\"package\":\"p\",\"name\":\"s\",\"entries\":[{\"name\":\"a\"},{\"name\":\"b\",\"replaces\":\"a\"}]}\n"
    );
}

#[test]
fn removing_a_key_from_a_sequence_item_keeps_the_item() {
    let text = "schema: olm.channel\npackage: p\nname: s\nentries:\n  - name: b\n    replaces: a\n  - name: c\n    replaces: b # keep me\n";
    let out = edit_text("c.yaml", text, |n| {
        let entries = n
            .get_field_mut("entries")
            .and_then(Node::as_seq_mut)
            .unwrap();
        entries[0].remove_field("replaces");
        entries[1].remove_field("name");
        entries[1].set_field("name", Node::string("c"));
    });
    assert_eq!(
        out,
        // The reordered item is written anew, and a comment at the end of its old last line goes with
        // it (left in place it would end up inside a multi-line value).
        "schema: olm.channel\npackage: p\nname: s\nentries:\n  - name: b\n  - replaces: b\n    name: c\n"
    );
}
