//! `fbc-edit diff` compares every field of every object: each test changes one field of a small
//! catalog holding every kind of object (testdata/diff/base) and checks that the change is reported
//! by meaning in text, JSON and Markdown, and that the command exits 1.

use crate::common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fbc_core::catalog::load;
use fbc_core::diff;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff")
}

fn base() -> PathBuf {
    data().join("base")
}

/// A copy of the base catalog with each `(from, to)` rewrite applied to its catalog file (each
/// `from` occurs exactly once).
fn changed(rewrites: &[(&str, &str)]) -> tempfile::TempDir {
    edited(|text| {
        for (from, to) in rewrites {
            assert_eq!(text.matches(from).count(), 1, "{from:?}");
            *text = text.replace(from, to);
        }
    })
}

/// A copy of the base catalog with its catalog file's text changed by `f`.
fn edited(f: impl FnOnce(&mut String)) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&base(), tmp.path());
    let path = tmp.path().join("demo/catalog.yaml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    f(&mut text);
    std::fs::write(&path, text).unwrap();
    tmp
}

/// Removes the YAML document that starts with `head`.
fn drop_document(text: &mut String, head: &str) {
    let start = text.find(head).expect("the document");
    let end = text[start + 4..]
        .find("\n---\n")
        .map_or(text.len(), |i| start + 4 + i + 1);
    text.replace_range(start..end, "");
}

fn fbc(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// Text, JSON and Markdown of `diff base NEW`, each checked to exit 1.
fn outputs(new: &Path) -> (String, serde_json::Value, String) {
    let (b, n) = (base(), new.to_path_buf());
    let (b, n) = (b.to_str().unwrap(), n.to_str().unwrap());
    let (code, text) = fbc(&["diff", b, n]);
    assert_eq!(code, 1, "a change exits 1:\n{text}");
    let (code, json) = fbc(&["diff", b, n, "-o", "json"]);
    assert_eq!(code, 1);
    let (code, md) = fbc(&["diff", b, n, "-o", "markdown"]);
    assert_eq!(code, 1);
    (text, serde_json::from_str(&json).unwrap(), md)
}

#[test]
fn the_base_catalog_equals_itself() {
    let b = base();
    let (code, text) = fbc(&["diff", b.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!((code, text.as_str()), (0, ""));
}

#[test]
fn a_related_image_digest() {
    let new = changed(&[(
        "operator@sha256:1111111111111111111111111111111111111111111111111111111111111111",
        "operator@sha256:3333333333333333333333333333333333333333333333333333333333333333",
    )]);
    let (text, json, md) = outputs(new.path());
    assert_eq!(
        text,
        "package demo (changed)\n  ! bundle demo.v1.0.0 changed (published bundles should not change: release a new bundle instead)\n    ~ relatedImages[operator]: quay.io/demo/operator@sha256:1111111111111111111111111111111111111111111111111111111111111111 → quay.io/demo/operator@sha256:3333333333333333333333333333333333333333333333333333333333333333\n"
    );
    let b = &json["packages"][0]["bundles_changed"][0];
    assert_eq!(b["name"], "demo.v1.0.0");
    assert_eq!(b["related_images"][0]["path"], "relatedImages[operator]");
    assert!(
        md.contains("- :warning: bundle `demo.v1.0.0` changed"),
        "{md}"
    );
    assert!(md.contains("  - `relatedImages[operator]`: "), "{md}");
}

#[test]
fn a_related_image_added_and_one_removed() {
    let new = changed(&[(
        "- name: operator\n  image: quay.io/demo/operator@sha256:1111",
        "- name: agent\n  image: quay.io/demo/operator@sha256:1111",
    )]);
    let (text, _, _) = outputs(new.path());
    assert!(
        text.contains("    - relatedImages[operator]: quay.io/demo/operator@sha256:1111"),
        "{text}"
    );
    assert!(
        text.contains("    + relatedImages[agent]: quay.io/demo/operator@sha256:1111"),
        "{text}"
    );
}

#[test]
fn the_package_description_and_icon() {
    let new = changed(&[
        (
            "description: A demo operator",
            "description: A demo operator, now documented",
        ),
        ("mediatype: image/svg+xml", "mediatype: image/png"),
        ("base64data: PHN2Zy", "base64data: iVBORw0KPHN2Zy"),
    ]);
    let (text, json, md) = outputs(new.path());
    assert_eq!(
        text,
        "package demo (changed)\n  ~ description: \"A demo operator\" → \"A demo operator, now documented\"\n  ~ icon.base64data: PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4= → iVBORw0KPHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=\n  ~ icon.mediatype: image/svg+xml → image/png\n"
    );
    let f = &json["packages"][0]["fields_changed"];
    assert_eq!(f[0]["path"], "description");
    assert_eq!(f[0]["old"], "A demo operator");
    assert_eq!(f[0]["new"], "A demo operator, now documented");
    assert!(
        md.contains("- `icon.mediatype`: `image/svg+xml` → `image/png`"),
        "{md}"
    );
}

#[test]
fn an_object_of_an_unknown_schema_in_a_package() {
    let new = changed(&[("text: first release", "text: first release, rewritten")]);
    let (text, json, md) = outputs(new.path());
    assert_eq!(
        text,
        "package demo (changed)\n  ~ example.note \"release-notes\"\n    ~ text: \"first release\" → \"first release, rewritten\"\n"
    );
    assert_eq!(json["packages"][0]["others"][0]["change"], "changed");
    assert!(
        md.contains("- `example.note \"release-notes\"` changed"),
        "{md}"
    );
}

#[test]
fn objects_of_unknown_schemas_added_and_removed() {
    let new = changed(&[(
        "schema: example.global\nname: settings\nmirror: true\n",
        "schema: example.global\nname: other-settings\nmirror: true\n",
    )]);
    let (text, json, md) = outputs(new.path());
    assert_eq!(
        text,
        "objects of no package:\n  + example.global \"other-settings\"\n  - example.global \"settings\"\n"
    );
    assert_eq!(json["others"][0]["change"], "added");
    assert!(md.contains("### Objects of no package"), "{md}");
}

#[test]
fn a_bundle_object_is_decoded_and_compared_by_kind_and_name() {
    let old = std::fs::read_to_string(data().join("csv.b64")).unwrap();
    let renamed = std::fs::read_to_string(data().join("csv-renamed.b64")).unwrap();
    let new = changed(&[(old.trim(), renamed.trim())]);
    let (text, json, _) = outputs(new.path());
    assert_eq!(
        text,
        "package demo (changed)\n  ! bundle demo.v1.1.0 changed (published bundles should not change: release a new bundle instead)\n    ~ object ClusterServiceVersion/demo.v1.1.0 spec.displayName: Demo → \"Demo Operator\"\n"
    );
    assert_eq!(
        json["packages"][0]["bundles_changed"][0]["properties_changed"],
        true
    );
}

#[test]
fn a_property_added_and_a_version_changed() {
    let new = changed(&[
        (
            "name: demo.v1.2.0\nimage: quay.io/demo/bundle@sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\nproperties:\n",
            "name: demo.v1.2.0\nimage: quay.io/demo/bundle@sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\nproperties:\n- type: olm.maxOpenShiftVersion\n  value: \"4.18\"\n",
        ),
        ("version: 1.2.0", "version: 1.2.1"),
    ]);
    let (text, _, _) = outputs(new.path());
    assert!(
        text.contains("    + property olm.maxOpenShiftVersion: 4.18\n"),
        "{text}"
    );
    assert!(
        text.contains("    ~ property olm.package version: 1.2.0 → 1.2.1\n"),
        "{text}"
    );
}

#[test]
fn an_unknown_field_of_a_bundle_channel_and_entry() {
    let new = changed(&[
        (
            "name: demo.v1.2.0\n  replaces: demo.v1.1.0\n",
            "name: demo.v1.2.0\n  replaces: demo.v1.1.0\n  note: hotfix\n",
        ),
        (
            "schema: olm.channel\npackage: demo\nname: stable\n",
            "schema: olm.channel\npackage: demo\nname: stable\nproperties:\n- type: example.tier\n  value: gold\n",
        ),
        (
            "schema: olm.bundle\npackage: demo\nname: demo.v1.2.0\n",
            "schema: olm.bundle\npackage: demo\nname: demo.v1.2.0\nbuiltBy: ci\n",
        ),
    ]);
    let (text, _, _) = outputs(new.path());
    assert!(text.contains("  channel stable:\n"), "{text}");
    assert!(
        text.contains("    + properties: [{\"type\":\"example.tier\",\"value\":\"gold\"}]\n"),
        "{text}"
    );
    assert!(
        text.contains("    + entries[demo.v1.2.0] note: hotfix\n"),
        "{text}"
    );
    assert!(text.contains("    + builtBy: ci\n"), "{text}");
}

#[test]
fn a_deprecation_message() {
    let new = changed(&[("has a known bug", "has a known bug; upgrade to 1.1.0")]);
    let (text, _, _) = outputs(new.path());
    assert_eq!(
        text,
        "package demo (changed)\n  deprecation of bundle demo.v1.0.0 reworded: \"demo.v1.0.0 has a known bug\" → \"demo.v1.0.0 has a known bug; upgrade to 1.1.0\"\n"
    );
}

#[test]
fn a_removed_bundle_and_the_clusters_it_strands() {
    // demo.v1.0.0 leaves the catalog and demo.v1.1.0 no longer replaces it: clusters still on
    // 1.0.0 have no upgrade any more.
    let new = edited(|text| {
        *text = text.replace(
            "entries:\n- name: demo.v1.0.0\n- name: demo.v1.1.0\n  replaces: demo.v1.0.0\n",
            "entries:\n- name: demo.v1.1.0\n",
        );
        drop_document(
            text,
            "---\nschema: olm.bundle\npackage: demo\nname: demo.v1.0.0\n",
        );
        drop_document(text, "---\nschema: olm.deprecations\n");
    });
    let (text, json, md) = outputs(new.path());
    assert!(text.contains("    - entry demo.v1.0.0\n"), "{text}");
    assert!(text.contains("  - bundle demo.v1.0.0\n"), "{text}");
    assert!(
        text.contains(
            "    ! clusters on these removed entries no longer reach the head: demo.v1.0.0\n"
        ),
        "{text}"
    );
    assert_eq!(
        json["packages"][0]["channels"][0]["removed_lost_path"],
        serde_json::json!(["demo.v1.0.0"])
    );
    assert_eq!(
        json["packages"][0]["bundles_removed"],
        serde_json::json!(["demo.v1.0.0"])
    );
    assert!(md.contains("- bundles removed: `demo.v1.0.0`"), "{md}");
}

#[test]
fn a_removed_entry_still_replaced_by_name_strands_nobody() {
    // The entry goes, but demo.v1.1.0 still names it in `replaces`: clusters on 1.0.0 upgrade.
    let new = changed(&[("entries:\n- name: demo.v1.0.0\n", "entries:\n")]);
    let d = diff::diff(&load(&base()).unwrap(), &load(new.path()).unwrap());
    let c = &d.packages[0].channels[0];
    assert_eq!(c.entries_removed, vec!["demo.v1.0.0"]);
    assert!(c.removed_lost_path.is_empty(), "{c:?}");
}

/// A channel of `n` entries, each replacing the one before, with a head that skips the newest
/// `skipped` of them when `head` is set.
fn long_channel(n: usize, head: Option<usize>) -> String {
    let mut y = String::from(
        "---\nschema: olm.package\nname: big\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: big\nname: stable\nentries:\n",
    );
    for i in 1..=n {
        y.push_str(&format!("- name: big.v1.{i}.0\n"));
        if i > 1 {
            y.push_str(&format!("  replaces: big.v1.{}.0\n", i - 1));
        }
    }
    if let Some(skipped) = head {
        y.push_str(&format!(
            "- name: big.v2.0.0\n  replaces: big.v1.{n}.0\n  skips:\n"
        ));
        for i in n - skipped + 1..n {
            y.push_str(&format!("  - big.v1.{i}.0\n"));
        }
    }
    let mut bundle = |name: &str, v: &str| {
        y.push_str(&format!(
            "---\nschema: olm.bundle\npackage: big\nname: {name}\nimage: quay.io/big/b:{v}\nproperties:\n- type: olm.package\n  value:\n    packageName: big\n    version: {v}\n"
        ));
    };
    for i in 1..=n {
        bundle(&format!("big.v1.{i}.0"), &format!("1.{i}.0"));
    }
    if head.is_some() {
        bundle("big.v2.0.0", "2.0.0");
    }
    y
}

#[test]
fn the_markdown_picture_of_a_long_channel_shows_the_changed_part_only() {
    let (old, new) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(old.path().join("c.yaml"), long_channel(150, None)).unwrap();
    std::fs::write(new.path().join("c.yaml"), long_channel(150, Some(60))).unwrap();
    let d = diff::diff(&load(old.path()).unwrap(), &load(new.path()).unwrap());
    let md = diff::markdown(&d);
    let start = md.find("```mermaid\n").expect("a picture") + 11;
    let pic = &md[start..start + md[start..].find("```").unwrap()];
    let nodes = pic
        .lines()
        .filter(|l| l.trim_start().starts_with('n') && l.contains("[\""))
        .count();
    assert!(
        nodes <= diff::mermaid::MAX_NODES + 2,
        "{nodes} nodes:\n{pic}"
    );
    // The new head, added, with its replaces edge drawn thick and the 59 skips folded into one:
    // the skips are new, the 59 entries are not, so their node is not marked added.
    assert!(pic.contains("[\"big.v2.0.0 (head)\"]:::added"), "{pic}");
    assert!(
        pic.contains("[\"59 entries: big.v1.91.0 … big.v1.149.0\"]:::group"),
        "{pic}"
    );
    assert_eq!(pic.matches(":::added").count(), 1, "{pic}");
    assert!(pic.contains(" == skips ==> "), "{pic}");
    assert!(pic.contains(" == replaces ==> "), "{pic}");
    assert!(pic.contains("linkStyle "), "{pic}");
    // The old head is still there, the bulk of the channel is not.
    assert!(pic.contains("big.v1.150.0"), "{pic}");
    assert!(!pic.contains("big.v1.10.0\""), "{pic}");
}

#[test]
fn removed_entries_and_links_are_drawn_dashed() {
    let new = changed(&[(
        "- name: demo.v1.2.0\n  replaces: demo.v1.1.0\n",
        "- name: demo.v1.2.0\n  replaces: demo.v1.0.0\n",
    )]);
    let (_, _, md) = outputs(new.path());
    assert!(md.contains("-. replaces .->"), "{md}");
    assert!(md.contains("== replaces ==>"), "{md}");
    assert!(md.contains("stroke-dasharray:5 5"), "{md}");
}

/// A package added (and, the other way round, removed), a channel added and removed, the default
/// channel moved and a deprecation taken back: each in every format.
#[test]
fn packages_channels_default_channel_and_deprecations_added_and_removed() {
    let new = edited(|text| {
        *text = text.replacen("defaultChannel: stable", "defaultChannel: fast", 1);
        drop_document(text, "---\nschema: olm.deprecations");
        *text = text.replacen(
            "---\nschema: olm.bundle\npackage: demo\nname: demo.v1.0.0",
            "---\nschema: olm.channel\npackage: demo\nname: fast\nentries:\n- name: demo.v1.2.0\n---\nschema: olm.bundle\npackage: demo\nname: demo.v1.0.0",
            1,
        );
    });
    std::fs::create_dir(new.path().join("other")).unwrap();
    std::fs::write(
        new.path().join("other/catalog.yaml"),
        "schema: olm.package\nname: other\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: other\nname: stable\nentries:\n- name: other.v1.0.0\n---\nschema: olm.bundle\npackage: other\nname: other.v1.0.0\nimage: quay.io/other/bundle:v1\nproperties:\n- type: olm.package\n  value: {packageName: other, version: 1.0.0}\n",
    )
    .unwrap();
    let (text, json, md) = outputs(new.path());
    assert_eq!(
        text,
        "package demo (changed)\n  default channel: stable → fast\n  + channel fast\n  - deprecation of bundle demo.v1.0.0: \"demo.v1.0.0 has a known bug\"\npackage other (added)\n  + channel stable\n  + bundle other.v1.0.0\n"
    );
    let demo = &json["packages"][0];
    assert_eq!(
        demo["default_channel"],
        serde_json::json!(["stable", "fast"])
    );
    assert_eq!(demo["channels_added"], serde_json::json!(["fast"]));
    assert_eq!(demo["deprecations"][0]["new"], serde_json::Value::Null);
    assert_eq!(json["packages"][1]["change"], "added");
    assert_eq!(
        json["packages"][1]["bundles_added"],
        serde_json::json!(["other.v1.0.0"])
    );
    for line in [
        "- default channel: `stable` → `fast`",
        "- channel added: `fast`",
        "- deprecation removed for bundle demo.v1.0.0: demo.v1.0.0 has a known bug",
        "### `other` (added)",
    ] {
        assert!(md.contains(line), "{line}\n{md}");
    }
    // The other way round: removed.
    let (b, n) = (base(), new.path().to_path_buf());
    let (code, text) = fbc(&["diff", n.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        text,
        "package demo (changed)\n  default channel: fast → stable\n  - channel fast\n  + deprecation of bundle demo.v1.0.0: \"demo.v1.0.0 has a known bug\"\npackage other (removed)\n  - channel stable\n  - bundle other.v1.0.0\n"
    );
}

/// An installed version that loses its way to the head (its successor is now skipped, so OLM v0
/// drops it and nothing replaces the older one), and gains it back the other way round.
#[test]
fn installed_versions_that_lose_and_gain_their_way_to_the_head() {
    let new = changed(&[(
        "- name: demo.v1.2.0\n  replaces: demo.v1.1.0",
        "- name: demo.v1.2.0\n  skips: [demo.v1.1.0]",
    )]);
    let (text, json, md) = outputs(new.path());
    assert!(
        text.ends_with("    ! no longer reach the head: demo.v1.0.0\n"),
        "{text}"
    );
    assert_eq!(
        json["packages"][0]["channels"][0]["lost_path"],
        serde_json::json!(["demo.v1.0.0"])
    );
    assert!(md.contains("demo.v1.0.0"), "{md}");
    let (b, n) = (base(), new.path().to_path_buf());
    let (code, text) = fbc(&["diff", n.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        text.ends_with("    now reach the head: demo.v1.0.0\n"),
        "{text}"
    );
}
