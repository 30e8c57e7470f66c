//! The JSON Schemas in `schemas/` (printed by `fbc-edit schema NAME`) against the engine, both
//! ways: every document the engine accepts validates, and documents it rejects fail the schema
//! wherever the rule can be written as a schema. The rules a schema cannot express are listed with
//! the reason, so a new rule case has to be placed in one list or the other.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fbc_core::catalog::{decode, node::json_in_text};
use fbc_edit::cli::schema::{SCHEMAS, get};
use serde_json::Value;

pub(crate) fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
}

pub(crate) fn validator(name: &str) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(get(name).expect(name).text).unwrap();
    jsonschema::draft7::new(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Where the schema finds `doc` at fault (JSON pointers) and why, or nothing when it validates.
pub(crate) fn faults(v: &jsonschema::Validator, doc: &Value) -> Vec<(String, String)> {
    v.iter_errors(doc)
        .map(|e| (e.instance_path().to_string(), e.to_string()))
        .collect()
}

/// Every document of a file, as opm's YAML-or-JSON decoder reads it.
fn documents(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let mut diags = Vec::new();
    decode::decode(&text, 0, &path.display().to_string(), &mut diags)
        .iter()
        .map(|d| json_in_text(&d.node, &text))
        .collect()
}

pub(crate) fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(e.path());
            } else if t.is_file() {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
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

#[test]
fn the_command_lists_prints_and_refuses_unknown_names() {
    let (code, out, _) = run(&["schema"]);
    assert_eq!(code, 0);
    for s in SCHEMAS {
        assert!(out.contains(&format!("  {} ", s.name)), "{out}");
    }
    for s in SCHEMAS {
        let (code, out, _) = run(&["schema", s.name]);
        assert_eq!(code, 0);
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schemas")
            .join(format!("{}.json", s.name));
        assert_eq!(out, std::fs::read_to_string(file).unwrap(), "{}", s.name);
    }
    let (code, out, err) = run(&["schema", "olm.bundles"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("no schema named \"olm.bundles\"") && err.contains("  olm.bundle "),
        "{err}"
    );
}

#[test]
fn the_schemas_are_draft_07_and_share_their_definitions_unchanged() {
    let mut seen: std::collections::BTreeMap<String, (&str, Value)> = Default::default();
    for s in SCHEMAS {
        let v: Value = serde_json::from_str(s.text).unwrap();
        assert!(
            jsonschema::draft7::meta::is_valid(&v),
            "{}: not a draft-07 schema",
            s.name
        );
        // Builds every pattern, too.
        validator(s.name);
        let id = v["$id"].as_str().unwrap();
        assert!(id.starts_with("https://") && id.ends_with(".json"), "{id}");
        // A definition copied into several files (each file stands alone) is the same everywhere.
        for (name, def) in v["definitions"].as_object().into_iter().flatten() {
            match seen.get(name) {
                Some((other, d)) => assert_eq!(
                    d, def,
                    "definition {name} differs between {other} and {}",
                    s.name
                ),
                None => {
                    seen.insert(name.clone(), (s.name, def.clone()));
                }
            }
        }
    }
    // The four object schemas are the catalog schema's definitions.
    let catalog: Value = serde_json::from_str(get("catalog").unwrap().text).unwrap();
    for (name, def) in [
        ("olm.package", "package"),
        ("olm.channel", "channel"),
        ("olm.bundle", "bundle"),
        ("olm.deprecations", "deprecations"),
    ] {
        let mut own: Value = serde_json::from_str(get(name).unwrap().text).unwrap();
        let own = own.as_object_mut().unwrap();
        let shared = catalog["definitions"][def].as_object().unwrap();
        for (k, v) in shared {
            if k != "description" {
                assert_eq!(
                    own.get(k),
                    Some(v),
                    "{name}: {k} differs from the catalog's"
                );
            }
        }
        for k in ["$schema", "$id", "title", "description", "definitions"] {
            own.remove(k);
        }
        assert!(
            own.keys().all(|k| shared.contains_key(k)),
            "{name} has keys the catalog's {def} lacks"
        );
    }
}

/// Every catalog in testdata that the engine accepts: each object validates against the catalog
/// schema and against its own.
#[test]
fn every_object_of_an_accepted_catalog_validates() {
    let catalog = validator("catalog");
    let own: Vec<(&str, jsonschema::Validator)> = [
        "olm.package",
        "olm.channel",
        "olm.bundle",
        "olm.deprecations",
    ]
    .into_iter()
    .map(|n| (n, validator(n)))
    .collect();
    // Every directory two and three levels down in testdata; those that hold no catalog, or one
    // the engine rejects, are passed over.
    let subdirs = |dir: &Path| -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        out.sort();
        out
    };
    let mut roots: Vec<PathBuf> = Vec::new();
    for area in subdirs(&testdata("")) {
        for dir in subdirs(&area) {
            roots.extend(subdirs(&dir));
            roots.push(dir);
        }
    }
    roots.sort();
    let (mut accepted, mut objects, mut kinds) = (0, 0, BTreeSet::new());
    for root in &roots {
        let Ok(cat) = fbc_core::catalog::load::load(root) else {
            continue;
        };
        if !fbc_core::validate::validate(&cat).is_valid() {
            continue;
        }
        accepted += 1;
        for (_, blob) in cat.live_blobs() {
            let doc = cat.to_json(&blob.value).unwrap();
            let at = format!("{}:{}", cat.files[blob.file].path, blob.line());
            let f = faults(&catalog, &doc);
            assert!(f.is_empty(), "{}: {at}: {f:#?}", root.display());
            if let Some((_, v)) = own.iter().find(|(n, _)| *n == blob.schema()) {
                let f = faults(v, &doc);
                assert!(f.is_empty(), "{}: {at}: {f:#?}", root.display());
            }
            kinds.insert(blob.schema().to_string());
            objects += 1;
        }
    }
    assert!(
        accepted >= 100 && objects >= 1500,
        "{accepted} catalogs, {objects} objects"
    );
    for k in [
        "olm.package",
        "olm.channel",
        "olm.bundle",
        "olm.deprecations",
    ] {
        assert!(kinds.contains(k), "no {k} in the corpus");
    }
}

/// Each case of `testdata/validate` the engine rejects, and where the catalog schema finds the
/// fault (a JSON pointer into one of its objects), or why a schema cannot find it.
const REJECTED: &[(&str, Result<&str, &str>)] = &[
    ("build-metadata-with-release", Ok("/properties/0/value")),
    (
        "bundle-object-not-a-manifest",
        Ok("/properties/3/value/data"),
    ),
    ("bundle-without-image", Ok("")),
    ("bundle-without-package", Ok("")),
    ("bundle-without-package-property", Ok("/properties")),
    ("channel-without-entries", Ok("/entries")),
    ("channel-without-name", Ok("")),
    (
        "csv-metadata-wrong-types",
        Ok("/properties/1/value/keywords"),
    ),
    ("default-channel-unset", Ok("")),
    (
        "deprecation-of-unknown-schema",
        Ok("/entries/0/reference/schema"),
    ),
    ("deprecation-without-message", Ok("/entries/0")),
    ("deprecation-without-schema", Ok("/entries/0/reference")),
    ("deprecations-without-package", Ok("")),
    ("document-without-schema", Ok("")),
    ("empty-skip", Ok("/entries/1/skips/0")),
    ("entry-without-name", Ok("/entries/2")),
    ("invalid-image", Ok("/image")),
    ("invalid-release", Ok("/properties/0/value/release")),
    // Bytes that are not UTF-8 become U+FFFD; the object also lacks its package.
    ("invalid-utf8", Ok("")),
    (
        "package-deprecation-with-name",
        Ok("/entries/0/reference/name"),
    ),
    ("package-name-not-dns1123", Ok("/name")),
    // The package has no channels (a rule across objects), and no defaultChannel either.
    ("package-without-channels", Ok("")),
    ("package-without-name", Ok("")),
    (
        "property-value-wrong-type",
        Ok("/properties/1/value/version"),
    ),
    // `schema` and `Schema` together cannot be refused by a schema (it cannot count keys by
    // their folded spelling); this object is refused because it has no properties.
    ("schema-keys-differ-in-case", Ok("")),
    ("version-not-semver", Ok("/properties/0/value/version")),
    ("wrong-field-type", Ok("/entries/1/skips/0")),
    (
        "bundle-in-no-channel",
        Err("across objects: channel entries naming bundles"),
    ),
    (
        "bundle-of-unknown-package",
        Err("across objects: the package must exist"),
    ),
    (
        "channel-of-unknown-package",
        Err("across objects: the package must exist"),
    ),
    (
        "default-channel-missing",
        Err("across objects: the default channel must exist"),
    ),
    (
        "deprecated-bundle-missing",
        Err("across objects: the bundle must exist"),
    ),
    (
        "deprecated-channel-missing",
        Err("across objects: the channel must exist"),
    ),
    (
        "deprecations-of-unknown-package",
        Err("across objects: the package must exist"),
    ),
    (
        "duplicate-bundle",
        Err("across objects: names unique in a package"),
    ),
    (
        "duplicate-channel",
        Err("across objects: names unique in a package"),
    ),
    (
        "duplicate-deprecation-entry",
        Err("uniqueness by a key of the items, not whole items"),
    ),
    (
        "duplicate-entry",
        Err("uniqueness by a key of the items, not whole items"),
    ),
    (
        "duplicate-package",
        Err("across objects: names unique in the catalog"),
    ),
    (
        "duplicate-versions",
        Err("across objects: versions unique in a package"),
    ),
    (
        "entry-without-bundle",
        Err("across objects: every entry needs its bundle"),
    ),
    (
        "invalid-skiprange",
        Err("blang/semver's range grammar and its quirks"),
    ),
    ("json-multiple-heads", Err("the upgrade graph")),
    ("multiple-heads", Err("the upgrade graph")),
    ("no-head", Err("the upgrade graph")),
    (
        "package-property-mismatch",
        Err("two fields compared (packageName and package)"),
    ),
    (
        "release-name-not-normalized",
        Err("two fields compared (name built from the version)"),
    ),
    ("replaces-cycle", Err("the upgrade graph")),
    ("skiprange-only-entry", Err("the upgrade graph")),
    ("stranded-entries", Err("the upgrade graph")),
    (
        "two-deprecations-objects",
        Err("across objects: one per package"),
    ),
    (
        "yaml-syntax-error",
        Err("the file is not YAML: no document to check"),
    ),
];

#[test]
fn rejected_catalogs_fail_the_schema_where_a_schema_can_tell() {
    let catalog = validator("catalog");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(testdata("validate"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    let mut placed = BTreeSet::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let accepted = fbc_core::catalog::load::load(dir)
            .map(|c| fbc_core::validate::validate(&c).is_valid())
            .unwrap_or(false);
        let expected = REJECTED.iter().find(|(n, _)| *n == name).map(|(_, e)| e);
        let found: Vec<(String, String)> = files(dir)
            .iter()
            .flat_map(|f| documents(f))
            .flat_map(|d| faults(&catalog, &d))
            .collect();
        match (accepted, expected) {
            (true, None) => assert!(found.is_empty(), "{name}: accepted, yet {found:#?}"),
            (true, Some(_)) => panic!("{name}: the engine accepts it; take it off the list"),
            (false, None) => panic!("{name}: the engine rejects it; place it in REJECTED"),
            (false, Some(Ok(at))) => assert!(
                found.iter().any(|(p, _)| p == at),
                "{name}: expected a fault at {at:?}, found {found:#?}"
            ),
            (false, Some(Err(why))) => assert!(
                found.is_empty(),
                "{name}: listed as beyond a schema ({why}), yet {found:#?}"
            ),
        }
        placed.insert(name);
    }
    for (n, _) in REJECTED {
        assert!(
            placed.contains(*n),
            "{n}: no such case in testdata/validate"
        );
    }
}

const BASE: &str = "schema: olm.package\nname: demo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: demo\nname: stable\nentries:\n- name: demo.v1.0.0\n---\n";

const BUNDLE: &str = "schema: olm.bundle\npackage: demo\nname: demo.v1.0.0\nimage: quay.io/demo/demo:v1.0.0\nproperties:\n- type: olm.package\n  value: {packageName: demo, version: 1.0.0}\n";

/// Whether the engine accepts a catalog of one file.
fn engine_accepts(text: &str) -> bool {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("catalog.yaml"), text).unwrap();
    fbc_core::catalog::load::load(tmp.path())
        .map(|c| fbc_core::validate::validate(&c).is_valid())
        .unwrap_or(false)
}

/// Bundles written for the rules the cases of `testdata/validate` leave out: types inside property
/// values, icons, related images and the letter case of keys.
#[test]
fn bundle_and_package_rules_beyond_the_validate_cases() {
    let v = validator("catalog");
    assert!(engine_accepts(&format!("{BASE}{BUNDLE}")));
    let bundle = |extra: &str| format!("{BUNDLE}{extra}");
    let cases: &[(&str, String, &str)] = &[
        (
            "a CSV metadata property with a string for a boolean",
            bundle(
                "- type: olm.csv.metadata\n  value: {installModes: [{type: AllNamespaces, supported: 'yes'}]}\n",
            ),
            "/properties/1/value/installModes/0/supported",
        ),
        (
            "an olm.gvk value that is a string",
            bundle("- type: olm.gvk\n  value: example.com/v1/Thing\n"),
            "/properties/1/value",
        ),
        (
            "a property without a value",
            bundle("- type: example.com/label\n"),
            "/properties/1",
        ),
        (
            "a related image with an upper-case repository",
            bundle("relatedImages:\n- {name: op, image: quay.io/Demo/op:1}\n"),
            "/relatedImages/0/image",
        ),
        (
            "a digest of the wrong length",
            BUNDLE.replace("demo:v1.0.0", "demo@sha256:abcd"),
            "/image",
        ),
        (
            "Properties spelled with a capital, holding a number as the version",
            BUNDLE
                .replace("properties:", "Properties:")
                .replace("version: 1.0.0", "version: 1"),
            "/Properties/0/value/version",
        ),
    ];
    for (what, text, at) in cases {
        let doc = format!("{BASE}{text}");
        assert!(!engine_accepts(&doc), "{what}: the engine accepts it");
        let found: Vec<(String, String)> = documents_of(&doc)
            .iter()
            .flat_map(|d| faults(&v, d))
            .collect();
        assert!(
            found.iter().any(|(p, _)| p == at),
            "{what}: expected a fault at {at}, found {found:#?}"
        );
    }
    let icon = "schema: olm.package\nname: demo\ndefaultChannel: stable\nicon: {base64data: 'not base64', mediatype: image/png}\n---\nschema: olm.channel\npackage: demo\nname: stable\nentries:\n- name: demo.v1.0.0\n---\n";
    let doc = format!("{icon}{BUNDLE}");
    assert!(!engine_accepts(&doc));
    let found: Vec<String> = documents_of(&doc)
        .iter()
        .flat_map(|d| faults(&v, d))
        .map(|(p, _)| p)
        .collect();
    assert!(found.contains(&"/icon/base64data".to_string()), "{found:?}");
    // What opm accepts and a stricter schema might not: keys in other letter cases, unknown keys,
    // null for an optional field, a bundle carried by its manifests alone.
    let lenient = format!(
        "{}---\n{}",
        BASE.replace("defaultChannel:", "DefaultChannel:"),
        "Schema: olm.bundle\nPackage: demo\nName: demo.v1.0.0\nimage: ''\nrelatedImages: null\nowner: me\nproperties:\n- Type: olm.package\n  Value: {PackageName: demo, Version: 1.0.0}\n- type: olm.bundle.object\n  value: {data: e30=}\n"
    );
    assert!(engine_accepts(&lenient));
    for d in documents_of(&lenient) {
        let f = faults(&v, &d);
        assert!(f.is_empty(), "{d}: {f:#?}");
    }
}

pub(crate) fn documents_of(text: &str) -> Vec<Value> {
    let mut diags = Vec::new();
    decode::decode(text, 0, "catalog.yaml", &mut diags)
        .iter()
        .map(|d| json_in_text(&d.node, text))
        .collect()
}
