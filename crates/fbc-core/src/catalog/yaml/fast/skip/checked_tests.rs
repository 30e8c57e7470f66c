//! The checked skip of `olm.csv.metadata` (and `olm.gvk`) values: generated values shaped as
//! opm's struct (its real field names, in any case, and unknown keys) whose leaves mostly fit and
//! sometimes do not (numbers, YAML 1.1 booleans, a mapping where a string belongs, `olm.substitutesFor`
//! annotations), and hand-written edges. Every value the skipper takes is read again by the scanner
//! and checked as validation checks it ([`super::stats::check`]); every document is also read by
//! the full reader and compared ([`check_text`]).

use proptest::prelude::*;

use super::stats::{checked_counts, validation_finds};
use crate::catalog::gotypes::{PROP_CSV_METADATA, PROP_GVK, PROP_GVK_REQUIRED, StructTy, Ty};
use crate::catalog::node::{Kind, Node};
use crate::catalog::yaml::fast::tests::check_text;
use crate::catalog::yaml::fast::tests::trees::{Tree, edit, write_after};
use crate::catalog::yaml::{Keep, parse_chunk_full, split_documents};

fn leaf(s: &str) -> Tree {
    Tree::Leaf(s.to_string())
}

fn leaves(words: &[&'static str]) -> BoxedStrategy<Tree> {
    prop::sample::select(words.to_vec()).prop_map(leaf).boxed()
}

/// A one-line plain string as catalogs hold them.
fn word() -> BoxedStrategy<Tree> {
    "[a-z][a-zA-Z0-9./-]{0,10}( [a-zA-Z0-9()]{1,6}){0,2}"
        .prop_map(Tree::Leaf)
        .boxed()
}

/// Strings, written in the ways catalogs write them: plain, quoted (numbers and booleans too),
/// running on over lines (a first line that alone would be a number or a boolean, too), with a
/// comment after, literal blocks; and nulls.
fn string() -> BoxedStrategy<Tree> {
    let literal = (
        prop::sample::select(vec!["|", "|-", "|+", "|2"]),
        prop::collection::vec(
            prop::sample::select(vec!["text", "{\"a\": 1}", "  deeper", "- item", "# not"]),
            1..4,
        ),
    )
        .prop_map(|(h, ls)| {
            Tree::Literal(h.to_string(), ls.into_iter().map(String::from).collect())
        });
    prop_oneof![
        12 => word(),
        3 => leaves(&[
            "'quoted'", "'1.10'", "\"010\"", "'yes'", "\"true\"", "'it''s'", "\"\\u00e9 \\\"x\\\"\"",
            "'runs\n  on'", "\"runs \\\n  on\"", "a string # a comment", "'q'   # c", "plain   ",
            "plain\n  runs on", "1\n  2", "yes\n  and no", "plain\n# a comment", "https://example.com/a",
            "quay.io/a/b@sha256:0123abc", "2020-01-02T03:04:05Z", "1.0.0", "v1alpha1", "é",
        ]),
        1 => literal,
        1 => leaves(&["~", "null", "Null", ""]),
    ]
    .boxed()
}

/// Plain scalars YAML 1.1 reads as no string, or as a boolean written otherwise than
/// `true`/`false`; and empty flow collections.
fn retyped() -> BoxedStrategy<Tree> {
    leaves(&[
        "1", "1.10", "010", "0x1F", "-1", "1_000", "1e3", "0.5", "yes", "Yes", "on", "ON", "y",
        "n", "No", "off", "true", "True", "false", "FALSE", "[]", "{}", "1.10 # c",
    ])
}

/// A key of a struct field as written: mostly exactly, sometimes in another case.
fn field_key(name: &'static str) -> BoxedStrategy<String> {
    let mut upper_first = name.to_string();
    upper_first[..1].make_ascii_uppercase();
    prop_oneof![
        12 => Just(name.to_string()),
        1 => Just(upper_first),
        1 => Just(name.to_ascii_uppercase()),
        1 => Just(name.to_ascii_lowercase()),
    ]
    .boxed()
}

/// Keys of annotations and labels, `olm.substitutesFor` in any case among them.
fn annotation_key() -> BoxedStrategy<String> {
    prop_oneof![
        20 => "[a-z][a-z0-9-]{0,8}(\\.[a-z]{1,6}){0,2}(/[a-z][a-z-]{0,10})?",
        4 => prop::sample::select(vec![
            "alm-examples", "capabilities", "categories", "containerImage", "createdAt",
            "operators.openshift.io/valid-subscription", "operatorframework.io/suggested-namespace",
            "features.operators.openshift.io/disconnected", "repository", "support",
        ])
        .prop_map(String::from),
        1 => prop::sample::select(vec![
            "olm.substitutesFor", "Olm.SubstitutesFor", "OLM.SUBSTITUTESFOR", "olm.substitutesfor",
            "1", "yes", "on", "true",
        ])
        .prop_map(String::from),
    ]
    .boxed()
}

/// Keys of no field: anything goes under them.
fn unknown_key() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[a-z]{3,8}",
        1 => "x-[a-z]{1,6}",
        1 => prop::sample::select(vec!["olm.substitutesFor", "Value", "1", "on"]).prop_map(String::from),
    ]
    .boxed()
}

/// Anything, as a `json.RawMessage` takes it: scalars of every kind and small collections.
fn raw(depth: u32) -> BoxedStrategy<Tree> {
    let scalar = prop_oneof![6 => string(), 1 => retyped()];
    if depth == 0 {
        return scalar.boxed();
    }
    prop_oneof![
        4 => scalar,
        1 => (1usize..=3, prop::collection::vec((unknown_key(), raw(depth - 1)), 1..4))
            .prop_map(|(step, es)| Tree::Map(step, dedup(es))),
        1 => (any::<bool>(), prop::collection::vec(raw(depth - 1), 1..4))
            .prop_map(|(indentless, items)| Tree::Seq(indentless, items)),
    ]
    .boxed()
}

/// Entries with the same key written twice left out but the first.
fn dedup(mut entries: Vec<(String, Tree)>) -> Vec<(String, Tree)> {
    let mut seen = std::collections::HashSet::new();
    entries.retain(|(k, _)| seen.insert(k.clone()));
    entries
}

/// A value of Go type `ty` (a field's), that fits mostly and, about one time in `1 + fit`, is of
/// another kind: a number or a YAML 1.1 boolean, a mapping where a string or a list belongs, a list
/// where a mapping belongs.
fn typed(ty: &'static Ty, fit: u32) -> BoxedStrategy<Tree> {
    let good = match *ty {
        Ty::Str | Ty::NamedStr(_) | Ty::Bytes => string(),
        Ty::Bool => prop_oneof![
            8 => leaves(&["true", "false", "True", "FALSE"]),
            1 => leaves(&["~", ""]),
        ]
        .boxed(),
        Ty::Int32 => leaves(&["8443", "443", "~", ""]),
        Ty::Raw => raw(2),
        Ty::Slice(t) => prop_oneof![
            8 => (any::<bool>(), prop::collection::vec(typed(t, fit), 1..4))
                .prop_map(|(indentless, items)| Tree::Seq(indentless, items)),
            1 => leaves(&["[]", "~"]),
        ]
        .boxed(),
        Ty::Map(t) => (
            1usize..=3,
            prop::collection::vec((annotation_key(), typed(t, fit)), 1..5),
        )
            .prop_map(|(step, es)| Tree::Map(step, dedup(es)))
            .boxed(),
        Ty::Struct(st) => structure(st, fit),
    };
    let bad = prop_oneof![
        4 => retyped(),
        1 => (1usize..=2, prop::collection::vec((unknown_key(), word()), 1..3))
            .prop_map(|(step, es)| Tree::Map(step, dedup(es))),
        1 => (any::<bool>(), prop::collection::vec(word(), 1..3))
            .prop_map(|(indentless, items)| Tree::Seq(indentless, items)),
        1 => word(),
    ];
    prop_oneof![fit => good, 1 => bad].boxed()
}

/// A mapping of `st`'s fields (keys in any case, some of no field), each of its field's type.
fn structure(st: &'static StructTy, fit: u32) -> BoxedStrategy<Tree> {
    let mut entries: Vec<(u32, BoxedStrategy<(String, Tree)>)> = st
        .fields
        .iter()
        .map(|(name, ty)| (4, (field_key(name), typed(ty, fit)).boxed()))
        .collect();
    entries.push((1, (unknown_key(), raw(1)).boxed()));
    let entry = prop::strategy::Union::new_weighted(entries);
    (1usize..=4, prop::collection::vec(entry, 1..5))
        .prop_map(|(step, es)| Tree::Map(step, dedup(es)))
        .boxed()
}

/// How a property holding an `olm.csv.metadata` value is written.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// `type` then `value`, as opm writes it.
    Plain,
    /// `value` before `type`.
    ValueFirst,
    /// A third key after `value`, or between `type` and `value`.
    KeyAfter,
    KeyBetween,
    /// The type, or the `type` key, quoted.
    QuotedType,
    QuotedKey,
}

fn csv_property(layout: Layout, value: Tree) -> Tree {
    typed_property("olm.csv.metadata", layout, value)
}

/// A property of type `type_` written as `layout` says, holding `value`.
fn typed_property(type_: &str, layout: Layout, value: Tree) -> Tree {
    let ty = |v: &str| ("type".to_string(), leaf(v));
    let value = ("value".to_string(), value);
    let extra = ("extra".to_string(), leaf("x"));
    Tree::Map(
        2,
        match layout {
            Layout::Plain => vec![ty(type_), value],
            Layout::ValueFirst => vec![value, ty(type_)],
            Layout::KeyAfter => vec![ty(type_), value, extra],
            Layout::KeyBetween => vec![ty(type_), extra, value],
            Layout::QuotedType => vec![ty(&format!("\"{type_}\"")), value],
            Layout::QuotedKey => vec![("'type'".to_string(), leaf(type_)), value],
        },
    )
}

/// How most properties are written (as opm writes them), and sometimes otherwise.
fn layout_of_most() -> BoxedStrategy<Layout> {
    prop_oneof![
        12 => Just(Layout::Plain),
        1 => Just(Layout::ValueFirst),
        1 => Just(Layout::KeyAfter),
        1 => Just(Layout::KeyBetween),
        1 => Just(Layout::QuotedType),
        1 => Just(Layout::QuotedKey),
    ]
    .boxed()
}

/// A bundle's properties: an `olm.package`, `olm.gvk` and `olm.gvk.required` ones and one or two
/// `olm.csv.metadata` properties in some order, dashes at the key's column or deeper.
fn csv_properties(fit: u32) -> impl Strategy<Value = Tree> {
    let csv = (layout_of_most(), typed(&CSV_METADATA, fit))
        .prop_map(|(l, v)| csv_property(l, v))
        .boxed();
    let package = property("olm.package", &[("packageName", "a"), ("version", "1.0.0")]);
    let gvk = property(
        "olm.gvk",
        &[("group", "a.example.com"), ("kind", "A"), ("version", "v1")],
    );
    // `olm.gvk` and `olm.gvk.required` values are checked as their structs too.
    let typed_gvk = (
        layout_of_most(),
        prop::sample::select(vec!["olm.gvk", "olm.gvk.required"]),
        typed(&GVK, fit),
    )
        .prop_map(|(l, t, v)| typed_property(t, l, v))
        .boxed();
    let others = prop::collection::vec(
        prop_oneof![
            3 => Just(package).boxed(),
            2 => Just(gvk).boxed(),
            2 => typed_gvk,
            1 => csv.clone()
        ],
        0..3,
    );
    (any::<bool>(), csv, others, any::<prop::sample::Index>()).prop_map(
        |(indentless, csv, mut others, at)| {
            others.insert(at.index(others.len() + 1), csv);
            Tree::Seq(indentless, others)
        },
    )
}

/// A property of type `type_` whose value maps each field to a plain scalar.
fn property(type_: &str, fields: &[(&str, &str)]) -> Tree {
    let value = fields
        .iter()
        .map(|(k, v)| (k.to_string(), leaf(v)))
        .collect();
    Tree::Map(
        2,
        vec![
            ("type".into(), leaf(type_)),
            ("value".into(), Tree::Map(2, value)),
        ],
    )
}

static CSV_METADATA: Ty = Ty::Struct(&PROP_CSV_METADATA);
static GVK: Ty = Ty::Struct(&PROP_GVK);

/// The first lines of a generated bundle, which edits leave alone.
const HEAD: &str = "schema: olm.bundle\nname: a.v1\npackage: a\n";

fn csv_doc(props: &Tree) -> String {
    let mut out = format!("{HEAD}properties:");
    write_after(props, 0, &mut out);
    out.push_str("image: quay.io/a@sha256:0123\n");
    out
}

/// Leaves fit this many times to one that does not.
const FIT: u32 = 40;

/// The `olm.csv.metadata`, `olm.gvk` and `olm.gvk.required` values of the one document `text`
/// that a checked read may skip (written `type` then `value` alone, a block collection) and that
/// validation finds nothing in, as the full reader reads them.
fn clean_values(text: &str) -> usize {
    let chunk = split_documents(text, 0, 1).0[0];
    let Ok(doc) = parse_chunk_full(text, chunk, 0) else {
        return 0;
    };
    let Some(Kind::Seq(props)) = doc.node.get("properties").map(|p| &p.kind) else {
        return 0;
    };
    let clean = |p: &Node| {
        let Kind::Map(es) = &p.kind else { return false };
        let [t, v] = &es[..] else { return false };
        let block = match &v.value.kind {
            Kind::Map(m) => !m.is_empty(),
            Kind::Seq(s) => !s.is_empty(),
            _ => false,
        };
        let st = match t.value.as_str() {
            Some("olm.csv.metadata") => &PROP_CSV_METADATA,
            Some("olm.gvk") => &PROP_GVK,
            Some("olm.gvk.required") => &PROP_GVK_REQUIRED,
            _ => return false,
        };
        t.key_str() == "type"
            && v.key_str() == "value"
            && block
            && validation_finds(&v.value, st).is_empty()
    };
    props.iter().filter(|p| clean(p)).count()
}

/// The generated bundles exercise both sides of the checked skip: many of their
/// `olm.csv.metadata` values are checked and skipped, many handed back; and of the values
/// validation finds nothing in, the skipper takes most (it hands back the others for the ways of
/// writing it leaves to the scanner, and numbers, which it does not tell apart).
#[test]
fn generated_csv_metadata_values_are_skipped_and_handed_back() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = csv_properties(FIT);
    let before = checked_counts();
    let mut clean = 0;
    for _ in 0..512 {
        let props = strategy.new_tree(&mut runner).expect("a tree").current();
        let text = csv_doc(&props);
        if check_text(&text, "csv bundle").0 == 1 {
            clean += clean_values(&text);
        }
    }
    let after = checked_counts();
    let (skipped, read) = (after.0.0 - before.0.0, after.1.0 - before.1.0);
    eprintln!(
        "generated olm.csv.metadata and olm.gvk values: {skipped} checked and skipped, {read} handed back and read; {clean} validation finds nothing in"
    );
    assert!(
        skipped >= 150 && read >= 150,
        "skipped {skipped}, read {read}"
    );
    assert!(
        skipped <= clean && skipped * 10 >= clean * 7,
        "skipped {skipped} of {clean}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Bundles whose `olm.csv.metadata` values are shaped as opm's struct, with leaves that
    /// sometimes do not fit: a checked read gives the full read's tree but for the values it
    /// proved, and each of those the scanner reads as validation finds nothing in.
    #[test]
    fn generated_csv_metadata_values_read_the_same(props in csv_properties(FIT)) {
        check_text(&csv_doc(&props), "csv bundle");
    }

    /// The same, with indentation, line breaks, comments, indicators and retyped scalars put in or
    /// taken out.
    #[test]
    fn mutated_csv_metadata_values_read_the_same(
        props in csv_properties(FIT),
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(vec![
            " ", "  ", "\n", "\n  ", ": ", "- ", "#", " #", "'", "\"", "|", "[]", "{}", "~", "yes",
            "1.10", "True", "0x1F", "olm.substitutesFor: x", "Value", "K", "\t", "\n- x",
        ]), any::<bool>()), 1..4),
    ) {
        let mut text = csv_doc(&props);
        edit(&mut text, HEAD.len(), &edits);
        check_text(&text, "mutated csv bundle");
    }
}

/// Whether a checked read of the bundle holding the `olm.csv.metadata` property `property`
/// (written at column 0 with its dash) checks and skips its value, and whether it hands it back
/// (each skip is read again by the scanner and checked by [`super::stats::check`]); the read is
/// also checked against the full reader's.
fn checks(property: &str) -> (bool, bool) {
    checks_at("", property)
}

/// [`checks`], with the dashes of the properties `pad` deeper than their key.
fn checks_at(pad: &str, property: &str) -> (bool, bool) {
    let props: String = format!("- type: olm.package\n  value:\n    packageName: a\n{property}")
        .lines()
        .map(|l| format!("{pad}{l}\n"))
        .collect();
    checks_doc(&format!(
        "schema: olm.bundle\nname: a.v1\nproperties:\n{props}package: a\n"
    ))
}

/// [`checks`], of the first document of `text`, which the quick reader must take.
fn checks_doc(text: &str) -> (bool, bool) {
    let chunk = split_documents(text, 0, 1).0[0];
    let before = checked_counts();
    let read = super::super::read(text, chunk, 0, 0, &mut Default::default(), Keep::Checked);
    let after = checked_counts();
    assert!(read.is_some(), "declined:\n{text}");
    assert!(check_text(text, "checked").0 >= 1, "{text}");
    (after.0.0 > before.0.0, after.1.0 > before.1.0)
}

/// An `olm.csv.metadata` property, `type` then `value`, whose value is `body` (written at column 0,
/// indented here by four).
fn csv(body: &str) -> String {
    let value: String = body.lines().map(|l| format!("    {l}\n")).collect();
    format!("- type: olm.csv.metadata\n  value:\n{value}")
}

/// A property of type `type_`, `type` then `value`, whose value is `body` (written at column 0,
/// indented here by four).
fn prop_of(type_: &str, body: &str) -> String {
    let value: String = body.lines().map(|l| format!("    {l}\n")).collect();
    format!("- type: {type_}\n  value:\n{value}")
}

#[test]
fn gvk_values_are_checked_as_their_struct_and_skipped_or_handed_back() {
    for type_ in ["olm.gvk", "olm.gvk.required"] {
        let gvk = |body: &str| prop_of(type_, body);
        // As opm writes them, fields in any case, one missing (Go leaves it empty), an unknown
        // key of any value, a quoted number: nothing for validation to find.
        for body in [
            "group: a.example.com\nkind: A\nversion: v1\n",
            "Group: a.example.com\nKIND: A\nversion: v1beta1\n",
            "kind: A\nversion: v1\n",
            "group: a\nkind: A\nversion: v1\nplural:\n- as\n",
            "group: a\nkind: A\nversion: '1'\n",
        ] {
            assert_eq!(checks(&gvk(body)), (true, false), "{type_}:\n{body}");
        }
        // A number, a YAML 1.1 boolean, a list or a mapping where a string belongs, and a
        // number under an unknown key (retyped, as every skip proves none is): read whole, and
        // validation reports what it finds.
        for body in [
            "group: a\nkind: A\nversion: 1\n",
            "group: a\nkind: yes\nversion: v1\n",
            "group:\n- a\nkind: A\nversion: v1\n",
            "group: a\nkind:\n  name: A\nversion: v1\n",
            "group: a\nkind: A\nversion: v1\nrank: 1.10\n",
        ] {
            assert_eq!(checks(&gvk(body)), (false, true), "{type_}:\n{body}");
        }
    }
    // Another property's value is kept whole: validation reads its fields.
    let package = prop_of("olm.package", "packageName: a\nversion: 1.0.0\n");
    assert_eq!(checks(&package), (false, false));
}

#[test]
fn values_validation_finds_something_in_are_handed_back() {
    let cases = [
        // A number where a string belongs, and where a whole number does (always a doubt).
        csv("displayName: 1\n"),
        csv("apiServiceDefinitions:\n  owned:\n  - name: a\n    containerPort: 8443\n"),
        // YAML 1.1 booleans otherwise than true/false, and numbers written otherwise than opm
        // writes them, where a string or a boolean belongs and under a key of no field.
        csv("maturity: yes\n"),
        csv("installModes:\n- supported: yes\n  type: OwnNamespace\n"),
        csv("installModes:\n- supported: 'true'\n  type: OwnNamespace\n"),
        csv("annotations:\n  features.operators.openshift.io/disconnected: false\n"),
        csv("somethingElse: 1.10\n"),
        csv(
            "crdDescriptions:\n  owned:\n  - name: a\n    specDescriptors:\n    - path: p\n      value: 010\n",
        ),
        // A mapping where a list belongs, a list where a mapping belongs, a mapping where a
        // string belongs, `{}` where a list does.
        csv("keywords:\n  a: b\n"),
        csv("provider:\n- name: x\n"),
        csv("description:\n  a: b\n"),
        csv("links: {}\n"),
        // The same, under keys in another case.
        csv("INSTALLMODES: x\n"),
        csv("DisplayName:\n  a: b\n"),
        // An olm.substitutesFor annotation, in any case.
        csv("annotations:\n  Olm.SubstitutesFor: a.v0.9.0\n"),
        csv("annotations:\n  olm.substitutesFor: a.v0.9.0\n"),
        // A key YAML 1.1 reads as no string.
        csv("annotations:\n  on: x\n"),
        // A key written twice, the second time of the wrong type.
        csv("provider:\n  name: a\nprovider: b\n"),
        // A list where the struct belongs, at the key's column or deeper.
        "- type: olm.csv.metadata\n  value:\n  - a\n".to_string(),
        csv("- a\n"),
        // A third key after the value is read with it.
        format!("{}  extra: x\n", csv("displayName: A\n")),
    ];
    for property in &cases {
        assert_eq!(checks(property), (false, true), "{property}");
    }
}

#[test]
fn values_of_the_struct_s_shape_are_skipped() {
    let full = "\
annotations:
  alm-examples: |-
    [{\"kind\": \"A\", \"spec\": {\"size\": 3}}]
  capabilities: Basic Install
  createdAt: 2020-01-02T03:04:05Z
  features.operators.openshift.io/disconnected: 'false'
  operators.openshift.io/valid-subscription: '[\"A\"]'
  olm.skipRange: '>=1.0.0 <1.2.0'
DisplayName: A   # a comment
description: A description over
  two lines, 1.10 and yes in it.
INSTALLMODES:
- supported: true
  type: OwnNamespace
- supported: False
  type: AllNamespaces
keywords: []
labels:
  operatorframework.io/arch.amd64: supported
links:
  - name: Docs
    url: https://example.com
maintainers:
maturity: ~
minKubeVersion: 1.21.0
nativeAPIs:
- group: ''
  kind: Pod
  version: v1
provider: {}
crdDescriptions:
  owned:
  - name: as.a.example.com
    version: v1
    kind: A
    resources:
    - kind: Deployment
      name: ''
      version: v1
    specDescriptors:
    - path: size
      x-descriptors:
      - urn:alm:descriptor:com.tectonic.ui:podCount
      value:
        nested:
        - anything: goes
    statusDescriptors:
    - path: phase
      value: 'quoted 1'
apiServiceDefinitions:
  owned:
  - name: v1.a
    containerPort:
    deploymentName: a
something:
  of: no field
";
    assert_eq!(checks(&csv(full)), (true, false));
    // A first line that alone would be a number, run on into a string.
    assert_eq!(checks(&csv("displayName: 1\n  2\n")), (true, false));
    // The type quoted, dashes deeper than the key.
    assert_eq!(
        checks("- type: \"olm.csv.metadata\"\n  value:\n    displayName: A\n"),
        (true, false)
    );
    assert_eq!(checks_at("  ", &csv("displayName: A\n")), (true, false));
    for property in [
        // The property's mapping on the line after its dash; a comment after `value:`; blank and
        // comment lines before the value's first key and inside it.
        "-\n  type: olm.csv.metadata\n  value:\n    displayName: A\n".to_string(),
        "- type: olm.csv.metadata\n  value:   # c\n    displayName: A\n".to_string(),
        "- type: olm.csv.metadata\n  value:\n\n  # c\n# d\n    displayName: A\n  # e\n    maturity: b\n"
            .to_string(),
        // A plain scalar running on over lines, whose first line alone is a boolean: a string.
        csv("displayName: yes\n  no\n"),
        // A quoted scalar with an empty line in it, a literal block with one.
        csv("description: 'a\n\n  b'\n"),
        csv("description: |\n  a\n\n  b\n"),
        // Items deeper after their dash.
        csv("installModes:\n-   supported: true\n    type: OwnNamespace\n"),
    ] {
        assert_eq!(checks(&property), (true, false), "{property}");
    }
    // At the end of the document, with no line break, and before the next document.
    let last =
        "schema: olm.bundle\nproperties:\n- type: olm.csv.metadata\n  value:\n    displayName: A";
    assert_eq!(checks_doc(last), (true, false));
    assert_eq!(
        checks_doc(&format!("{last}\n---\nschema: x\n")),
        (true, false)
    );
}

#[test]
fn values_not_written_type_then_value_alone_are_read_unchecked() {
    for property in [
        "- value:\n    displayName: A\n  type: olm.csv.metadata\n",
        "- type: olm.csv.metadata\n  extra: x\n  value:\n    displayName: A\n",
        "- type: olm.package\n  value:\n    packageName: A\n",
        "- type: olm.gvk\n  value: {}\n",
        // Not a block collection.
        "- type: olm.csv.metadata\n  value: {}\n",
        "- type: olm.csv.metadata\n  value:\n",
    ] {
        assert_eq!(checks(property), (false, false), "{property}");
    }
    // Properties that are not the document's own.
    for text in [
        "a:\n  properties:\n  - type: olm.csv.metadata\n    value:\n      displayName: A\n",
        "- properties:\n  - type: olm.csv.metadata\n    value:\n      displayName: A\n",
    ] {
        assert_eq!(checks_doc(text), (false, false), "{text}");
    }
}
