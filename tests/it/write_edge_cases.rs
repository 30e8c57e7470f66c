//! Write-back edge cases: each test edits a small document and checks that the saved text reloads to
//! exactly the edited values (anchors, empty values, comments, block scalars, CRLF, JSON layouts,
//! removing and adding whole blobs).

#![allow(dead_code)]
use crate::common;

use fbc_core::catalog::node::ThinVec;
use fbc_core::catalog::{Catalog, Entry, Kind, Node, load};
use serde_json::Value;

pub fn at<'a>(n: &'a mut Node, path: &str) -> &'a mut Node {
    let mut cur = n;
    for seg in path.split('/').filter(|s| !s.is_empty()) {
        cur = match &mut cur.kind {
            Kind::Map(es) => &mut es.iter_mut().find(|e| e.key_str() == seg).expect(seg).value,
            Kind::Seq(items) => &mut items[seg.parse::<usize>().unwrap()],
            _ => panic!("bad path {seg}"),
        };
    }
    cur
}
pub fn map(n: &mut Node) -> &mut ThinVec<Entry> {
    n.as_map_mut().unwrap()
}
pub fn seq(n: &mut Node) -> &mut ThinVec<Node> {
    n.as_seq_mut().unwrap()
}
pub fn ent(k: &str, v: Node) -> Entry {
    Entry {
        key: Node::string(k),
        value: v,
    }
}
pub fn s(v: &str) -> Node {
    Node::string(v)
}
pub fn num(v: &str) -> Node {
    Node::new(Kind::Number(v.into()))
}

/// Loads `text` as file `fname`, applies `f` to the catalog, renders, reloads, compares.
pub fn run(fname: &str, text: &str, f: impl FnOnce(&mut Catalog)) -> (String, Result<(), String>) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join(fname), text).unwrap();
    let mut cat = load(tmp.path()).unwrap();
    assert!(
        cat.diagnostics
            .iter()
            .all(|d| d.severity != fbc_core::catalog::Severity::Error),
        "load diags: {:?}",
        cat.diagnostics
    );
    f(&mut cat);
    let fid = cat.files.iter().position(|x| x.path == fname).unwrap();
    let new = cat.render_file(fid).unwrap();
    let want: Vec<Value> = cat.files[fid]
        .blobs
        .iter()
        .filter(|&&b| cat.blob(b).state != fbc_core::catalog::BlobState::Removed)
        .map(|&b| cat.to_json(&cat.blob(b).value).unwrap())
        .collect();
    let tmp2 = tempfile::tempdir().unwrap();
    std::fs::write(tmp2.path().join(fname), &new).unwrap();
    let back = load(tmp2.path()).unwrap();
    let got: Vec<Value> = back
        .blobs
        .iter()
        .map(|b| back.to_json(&b.value).unwrap())
        .collect();
    let res = if back
        .diagnostics
        .iter()
        .any(|d| d.severity == fbc_core::catalog::Severity::Error)
    {
        Err(format!("diags: {:?}", back.diagnostics))
    } else if serde_json::to_string(&want).unwrap() != serde_json::to_string(&got).unwrap() {
        Err(format!(
            "want {}\ngot  {}",
            serde_json::to_string(&want).unwrap(),
            serde_json::to_string(&got).unwrap()
        ))
    } else {
        Ok(())
    };
    (new, res)
}

pub fn edit0(fname: &str, text: &str, f: impl FnOnce(&mut Node)) -> String {
    let (new, res) = run(fname, text, |c| {
        c.edit(0, f);
    });
    eprintln!("---- old\n{text}---- new\n{new}----");
    if let Err(e) = res {
        panic!("MISMATCH: {e}");
    }
    new
}
pub fn y(text: &str, f: impl FnOnce(&mut Node)) -> String {
    edit0("c.yaml", text, f)
}
pub fn j(text: &str, f: impl FnOnce(&mut Node)) -> String {
    edit0("c.json", text, f)
}

// ---------------- probes
#[test]
fn y_comment_after_value_replace() {
    let n = y("schema: s\nname: a # c\nx: 1\n", |n| {
        *at(n, "name") = s("b")
    });
    assert_eq!(n, "schema: s\nname: b # c\nx: 1\n");
}
#[test]
fn y_block_scalar_replaced_by_scalar() {
    y("schema: s\nd: |\n  hello\n  world\nx: 1\n", |n| {
        *at(n, "d") = s("short")
    });
}
#[test]
fn y_block_scalar_replaced_by_multiline() {
    y("schema: s\nd: |\n  hello\n  world\nx: 1\n", |n| {
        *at(n, "d") = s("a\nb\n")
    });
}
#[test]
fn y_insert_after_block_scalar() {
    y("schema: s\nd: |\n  hello\n  world\n", |n| {
        map(n).push(ent("z", s("v")))
    });
}
#[test]
fn y_insert_after_block_scalar_keep() {
    y("schema: s\nd: |+\n  hello\n\n", |n| {
        map(n).push(ent("z", s("v")))
    });
}
#[test]
fn y_insert_after_block_scalar_then_comment() {
    y("schema: s\nd: >\n  hello\n  world\n# trailing\n", |n| {
        map(n).push(ent("z", s("v")))
    });
}
#[test]
fn y_crlf_insert() {
    y("schema: s\r\nname: a\r\n", |n| {
        map(n).push(ent("z", s("v")))
    });
}
#[test]
fn y_crlf_replace_block_scalar() {
    y("schema: s\r\nd: |\r\n  hello\r\nx: 1\r\n", |n| {
        *at(n, "d") = s("q")
    });
}
#[test]
fn y_no_final_newline_insert() {
    y("schema: s\nname: a", |n| map(n).push(ent("z", s("v"))));
}
#[test]
fn y_no_final_newline_insert_seq() {
    y("schema: s\nl:\n- a", |n| seq(at(n, "l")).push(s("b")));
}
#[test]
fn y_seqmap_delete_first_key() {
    y(
        "schema: s\nentries:\n- name: x\n  replaces: y\n- name: z\n",
        |n| {
            map(at(n, "entries/0")).remove(0);
        },
    );
}
#[test]
fn y_seqmap_insert_before_first_key() {
    y("schema: s\nentries:\n- name: x\n  replaces: y\n", |n| {
        map(at(n, "entries/0")).insert(0, ent("a", s("b")));
    });
}
#[test]
fn y_seqmap_only_key_delete() {
    y("schema: s\nentries:\n- name: x\n- name: y\n", |n| {
        map(at(n, "entries/0")).remove(0);
        map(at(n, "entries/0")).push(ent("q", s("r")));
    });
}
#[test]
fn y_empty_seq_grows() {
    y("schema: s\nl: []\nx: 1\n", |n| seq(at(n, "l")).push(s("a")));
}
#[test]
fn y_empty_map_grows() {
    y("schema: s\nl: {}\nx: 1\n", |n| {
        map(at(n, "l")).push(ent("a", s("b")))
    });
}
#[test]
fn y_nested_seq_append() {
    y("schema: s\nl:\n- - a\n  - b\n- - c\n", |n| {
        seq(at(n, "l/0")).push(s("z"))
    });
}
#[test]
fn y_nested_seq_insert_front() {
    y("schema: s\nl:\n- - a\n  - b\n", |n| {
        seq(at(n, "l/0")).insert(0, s("z"))
    });
}
#[test]
fn y_quoted_key_replace() {
    let n = y("schema: s\n\"name\": a\n'x': 1\n", |n| {
        *at(n, "x") = num("2")
    });
    assert!(n.contains("'x': 2"));
}
#[test]
fn y_anchor_alias_edit_alias() {
    y("schema: s\na: &A\n  k: 1\nb: *A\n", |n| {
        *at(n, "b/k") = num("2")
    });
}
#[test]
fn y_anchor_edit_anchor_target() {
    y("schema: s\na: &A\n  k: 1\nb: *A\n", |n| {
        *at(n, "a/k") = num("2")
    });
}
#[test]
fn y_anchor_scalar_replace() {
    y("schema: s\na: &A foo\nb: *A\n", |n| *at(n, "a") = s("bar"));
}
#[test]
fn y_delete_last_key_with_comment_between() {
    y("schema: s\na: 1\n# about b\nb: 2\n", |n| {
        map(n).pop();
    });
}
#[test]
fn y_delete_key_with_nested_block() {
    y("schema: s\na:\n  k: 1\n  j: 2\nb: 2\n", |n| {
        map(n).remove(1);
    });
}
#[test]
fn y_delete_only_item() {
    y("schema: s\nl:\n- a\nx: 1\n", |n| {
        seq(at(n, "l")).clear();
    });
}
#[test]
fn y_insert_after_nested_block_with_comment() {
    y(
        "schema: s\na:\n  k: 1\n  # trailing comment of a\nb: 2\n",
        |n| {
            map(at(n, "a")).push(ent("z", num("3")));
        },
    );
}
#[test]
fn y_insert_after_last_with_comment_tail() {
    y("schema: s\na: 1\n# tail\n", |n| {
        map(n).push(ent("z", num("3")));
    });
}
#[test]
fn y_insert_in_indented_seq() {
    y("schema: s\nl:\n  - a\n  - b\nx: 1\n", |n| {
        seq(at(n, "l")).push(s("c"))
    });
}
#[test]
fn y_insert_after_multiline_plain() {
    y("schema: s\nd: hello\n  world\n", |n| {
        map(n).push(ent("z", s("v")))
    });
}
#[test]
fn y_replace_multiline_plain() {
    y("schema: s\nd: hello\n  world\nx: 1\n", |n| {
        *at(n, "d") = s("q")
    });
}
#[test]
fn y_replace_multiline_dq() {
    y("schema: s\nd: \"hello\n  world\"\nx: 1\n", |n| {
        *at(n, "d") = s("q")
    });
}
#[test]
fn y_scalar_to_map() {
    y("schema: s\nd: x\ne: 1\n", |n| {
        *at(n, "d") = Node::map(vec![("a", s("b"))])
    });
}
#[test]
fn y_seq_item_scalar_to_map() {
    y("schema: s\nl:\n- x\n- y\n", |n| {
        *at(n, "l/0") = Node::map(vec![("a", s("b")), ("c", s("d"))])
    });
}
#[test]
fn y_map_to_scalar() {
    y("schema: s\nd:\n  a: 1\ne: 1\n", |n| *at(n, "d") = s("x"));
}
#[test]
fn y_seq_of_maps_item_changed_key_order() {
    y("schema: s\nl:\n- a: 1\n  b: 2\n", |n| {
        map(at(n, "l/0")).reverse();
    });
}
#[test]
fn y_root_reorder() {
    y("# head\nschema: s\nname: nm\n", |n| {
        map(n).reverse();
    });
}
#[test]
fn y_root_reorder_indented_doc() {
    y("---\n  schema: s\n  name: nm\n", |n| {
        map(n).reverse();
    });
}
#[test]
fn y_flow_map_value_edit() {
    y("schema: s\nd: {a: 1, b: 2}\n", |n| *at(n, "d/a") = num("5"));
}
#[test]
fn y_flow_seq_multiline_edit() {
    y("schema: s\nd: [a,\n  b]\nx: 1\n", |n| {
        seq(at(n, "d")).push(s("c"))
    });
}
#[test]
fn y_tab_key_str() {
    y("schema: s\nx: 1\n", |n| map(n).push(ent("k:ey", s("#v"))));
}
#[test]
fn y_key_needs_quote() {
    y("schema: s\nx: 1\n", |n| map(n).push(ent("- a", s("v"))));
}
#[test]
fn y_key_multiline() {
    y("schema: s\nx: 1\n", |n| map(n).push(ent("a\nb", s("v"))));
}
#[test]
fn y_key_empty() {
    y("schema: s\nx: 1\n", |n| map(n).push(ent("", s("v"))));
}
#[test]
#[ignore = "known limitation: keys over 1024 characters need the explicit `? key` form, not written yet"]
fn y_key_long() {
    let k = "k".repeat(1100);
    y("schema: s\nx: 1\n", |n| map(n).push(ent(&k, s("v"))));
}

// ------------- batch 2
#[test]
fn j_delete_last_two() {
    j("{\"schema\":\"s\",\"a\":1,\"b\":2,\"c\":3}\n", |n| {
        map(n).truncate(2);
    });
}
#[test]
fn j_delete_last_two_indented() {
    j(
        "{\n    \"schema\": \"s\",\n    \"a\": 1,\n    \"b\": 2,\n    \"c\": 3\n}\n",
        |n| {
            map(n).truncate(2);
        },
    );
}
#[test]
fn j_seq_delete_last_two() {
    j(
        "{\n  \"schema\": \"s\",\n  \"l\": [\n    1,\n    2,\n    3\n  ]\n}\n",
        |n| {
            seq(at(n, "l")).truncate(1);
        },
    );
}
#[test]
fn j_compact_insert() {
    let o = j("{\"schema\":\"s\",\"a\":{\"x\":1}}", |n| {
        map(at(n, "a")).push(ent("y", Node::map(vec![("q", num("1"))])));
    });
    assert_eq!(o, "{\"schema\":\"s\",\"a\":{\"x\":1,\"y\":{\"q\":1}}}");
}
#[test]
fn j_tab_insert() {
    j(
        "{\n\t\"schema\": \"s\",\n\t\"a\": {\n\t\t\"x\": 1\n\t}\n}\n",
        |n| {
            map(at(n, "a")).push(ent("y", Node::map(vec![("q", num("1"))])));
        },
    );
}
#[test]
fn j_two_space_insert_front() {
    j(
        "{\n  \"schema\": \"s\",\n  \"l\": [\n    \"a\"\n  ]\n}\n",
        |n| {
            seq(at(n, "l")).insert(0, Node::map(vec![("q", num("1"))]));
        },
    );
}
#[test]
fn j_empty_seq_grows() {
    j("{\n  \"schema\": \"s\",\n  \"l\": []\n}\n", |n| {
        seq(at(n, "l")).push(s("a"));
    });
}
#[test]
fn j_delete_only_elem() {
    j(
        "{\n  \"schema\": \"s\",\n  \"l\": [\n    \"a\"\n  ]\n}\n",
        |n| {
            seq(at(n, "l")).clear();
        },
    );
}
#[test]
fn j_delete_mid_and_insert_end() {
    j("{\n  \"schema\": \"s\",\n  \"l\": [1, 2, 3]\n}\n", |n| {
        let v = seq(at(n, "l"));
        v.remove(1);
    });
}
#[test]
fn j_crlf_insert() {
    j("{\r\n  \"schema\": \"s\",\r\n  \"a\": 1\r\n}\r\n", |n| {
        map(n).push(ent("b", Node::map(vec![("q", num("1"))])));
    });
}
#[test]
fn y_null_value_delete() {
    let o = y("schema: s\na:\nb: 1\n", |n| {
        map(n).remove(1);
    });
    assert_eq!(o, "schema: s\nb: 1\n");
}
#[test]
fn y_null_value_insert_after() {
    y("schema: s\na:\nb: 1\n", |n| {
        map(n).insert(2, ent("z", num("3")));
    });
}
#[test]
fn y_null_value_replace() {
    let o = y("schema: s\na:\nb: 1\n", |n| {
        *at(n, "a") = s("x");
    });
    assert_eq!(o, "schema: s\na: x\nb: 1\n");
}
#[test]
fn y_null_nested_last_insert() {
    y("schema: s\nx:\n  a:\nb: 1\n", |n| {
        map(at(n, "x")).push(ent("z", num("3")));
    });
}
#[test]
fn y_null_seq_item_replace() {
    y("schema: s\nl:\n-\n- b\n", |n| {
        *at(n, "l/0") = s("x");
    });
}
#[test]
fn y_null_seq_item_delete() {
    y("schema: s\nl:\n-\n- b\n", |n| {
        seq(at(n, "l")).remove(0);
    });
}
#[test]
fn y_null_last_value_replace_nonl() {
    y("schema: s\na:", |n| {
        *at(n, "a") = s("x");
    });
}
#[test]
fn y_tagged_replace() {
    y("schema: s\na: !!str 12\n", |n| {
        *at(n, "a") = num("5");
    });
}
#[test]
fn y_tagged_replace2() {
    y("schema: s\na: !!str 12\n", |n| {
        *at(n, "a") = s("5");
    });
}
#[test]
fn y_tagged_map_insert() {
    y("schema: s\na: !!map\n  k: 1\n", |n| {
        map(at(n, "a")).push(ent("z", num("3")));
    });
}

fn multi(fname: &str, text: &str, f: impl FnOnce(&mut Catalog)) -> String {
    let (new, res) = run(fname, text, f);
    eprintln!("---- old\n{text}---- new\n{new}----");
    if let Err(e) = res {
        panic!("MISMATCH: {e}");
    }
    new
}
fn blob(schema: &str, pkg: &str, name: &str) -> Node {
    Node::map(vec![
        ("schema", s(schema)),
        ("package", s(pkg)),
        ("name", s(name)),
    ])
}
const Y3: &str = "schema: olm.package\nname: p\n---\nschema: olm.channel\npackage: p\nname: c1\n---\nschema: olm.channel\npackage: p\nname: c2\n";
const J3: &str = "{\n    \"schema\": \"olm.package\",\n    \"name\": \"p\"\n}\n{\n    \"schema\": \"olm.channel\",\n    \"package\": \"p\",\n    \"name\": \"c1\"\n}\n{\n    \"schema\": \"olm.channel\",\n    \"package\": \"p\",\n    \"name\": \"c2\"\n}\n";
#[test]
fn y_remove_first_two() {
    multi("c.yaml", Y3, |c| {
        c.remove_blob(0);
        c.remove_blob(1);
    });
}
#[test]
fn y_remove_first() {
    multi("c.yaml", Y3, |c| {
        c.remove_blob(0);
    });
}
#[test]
fn y_remove_last() {
    multi("c.yaml", Y3, |c| {
        c.remove_blob(2);
    });
}
#[test]
fn y_remove_all() {
    multi("c.yaml", Y3, |c| {
        c.remove_blob(0);
        c.remove_blob(1);
        c.remove_blob(2);
    });
}
#[test]
fn y_remove_last_then_add() {
    multi("c.yaml", Y3, |c| {
        c.remove_blob(2);
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn y_remove_first_then_add_same_pkg_only() {
    multi(
        "c.yaml",
        "schema: olm.package\nname: p\n---\nschema: olm.package\nname: q\n",
        |c| {
            c.remove_blob(0);
            c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
        },
    );
}
#[test]
fn j_remove_last_then_add() {
    multi("c.json", J3, |c| {
        c.remove_blob(2);
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn j_remove_first_then_add() {
    multi(
        "c.json",
        "{\"schema\":\"olm.package\",\"name\":\"p\"}\n{\"schema\":\"olm.package\",\"name\":\"q\"}\n",
        |c| {
            c.remove_blob(0);
            c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
        },
    );
}
#[test]
fn j_add_compact() {
    multi(
        "c.json",
        "{\"schema\":\"olm.package\",\"name\":\"p\"}",
        |c| {
            c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
        },
    );
}
#[test]
fn j_add_mid() {
    multi("c.json", J3, |c| {
        c.edit(1, |n| *at(n, "name") = s("c0"));
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn y_add_nonl() {
    multi("c.yaml", "schema: olm.package\nname: p", |c| {
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn y_add_crlf() {
    multi("c.yaml", "schema: olm.package\r\nname: p\r\n", |c| {
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn y_add_mid() {
    multi(
        "c.yaml",
        "schema: olm.package\nname: p\n---\nschema: olm.package\nname: q\n",
        |c| {
            c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
        },
    );
}
#[test]
fn y_add_after_dots() {
    multi("c.yaml", "schema: olm.package\nname: p\n...\n", |c| {
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn y_add_after_blockscalar_keep() {
    multi(
        "c.yaml",
        "schema: olm.package\nname: p\nd: |+\n  x\n\n",
        |c| {
            c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
        },
    );
}

// ------------- batch 3
#[test]
fn y_comment_then_literal() {
    y("schema: s\na: x # c\nb: 1\n", |n| {
        *at(n, "a") = s("l1\nl2");
    });
}
#[test]
fn y_seq_comment_then_literal() {
    y("schema: s\nl:\n- x # c\n- y\n", |n| {
        *at(n, "l/0") = s("l1\nl2");
    });
}
#[test]
fn y_comment_then_map_with_literal() {
    y("schema: s\na: x # c\nb: 1\n", |n| {
        *at(n, "a") = Node::map(vec![("k", s("l1\nl2"))]);
    });
}
#[test]
fn y_block_literal_to_literal_comment() {
    y("schema: s\na: [1, 2] # c\nb: 1\n", |n| {
        *at(n, "a") = s("l1\nl2\n");
    });
}
#[test]
fn y_anchor_map_delete() {
    y("schema: s\na: &A\n  k: 1\nb: *A\n", |n| {
        map(n).remove(1);
    });
}
#[test]
fn y_anchor_entry_rewrite() {
    y("schema: s\na: &A x\nb: *A\n", |n| {
        *at(n, "a") = Node::map(vec![("k", s("v"))]);
    });
}
#[test]
fn y_comment_dash_in_seq() {
    y("schema: s\nl:\n- # note -\n  x: 1\n", |n| {
        seq(at(n, "l")).push(s("z"));
    });
}
#[test]
#[ignore = "known limitation: keys added next to an inline `<<` merge come out in another order"]
fn y_merge_inline_insert() {
    y("schema: s\nb:\n  <<: {k: 1}\n  x: 1\n", |n| {
        map(at(n, "b")).push(ent("z", num("3")));
    });
}
#[test]
fn y_merge_alias_edit() {
    y("schema: s\na: &A\n  k: 1\nb:\n  <<: *A\n  x: 1\n", |n| {
        *at(n, "b/x") = num("3");
    });
}
#[test]
fn y_seqmap_insert_key_after_nested() {
    y(
        "schema: s\nl:\n- name: x\n  skips:\n  - a\n- name: y\n",
        |n| {
            map(at(n, "l/0")).push(ent("z", s("v")));
        },
    );
}
#[test]
fn y_seq_replace_item_map_with_comment() {
    y("schema: s\nl:\n- name: x # c\n- name: y\n", |n| {
        *at(n, "l/0/name") = s("a\nb");
    });
}
#[test]
fn y_seq_keep_block_scalar_item_then_insert() {
    y("schema: s\nl:\n- |+\n  a\n\n", |n| {
        seq(at(n, "l")).push(s("z"));
    });
}
#[test]
fn y_two_edits_same_map() {
    y("schema: s\na: 1\nb: 2\nc: 3\n", |n| {
        *at(n, "a") = num("9");
        map(n).remove(2);
        map(n).push(ent("d", num("4")));
    });
}
#[test]
fn y_doc_with_leading_comment_reorder() {
    y("# c1\n\n# c2\nschema: s\nx: 1\n", |n| {
        map(n).reverse();
    });
}
#[test]
fn y_flow_root() {
    y("{schema: s, x: 1}\n", |n| {
        map(n).push(ent("y", num("2")));
    });
}
#[test]
fn y_flow_root_multiline() {
    y("{schema: s,\n x: 1}\n", |n| {
        *at(n, "x") = num("2");
    });
}
#[test]
fn y_plain_value_to_empty() {
    y("schema: s\na: x\n", |n| {
        *at(n, "a") = s("");
    });
}
#[test]
fn y_value_next_line_replace_with_map() {
    y("schema: s\na:\n  x\nb: 1\n", |n| {
        *at(n, "a") = Node::map(vec![("k", s("v"))]);
    });
}
#[test]
fn y_seq_indentless_nested_map_insert_before_first() {
    y("schema: s\nl:\n-   name: x\n    v: 1\n", |n| {
        map(at(n, "l/0")).insert(1, ent("z", s("v")));
    });
}
#[test]
fn y_doc_end_marker_edit() {
    y("schema: s\nx: 1\n...\n", |n| {
        map(n).push(ent("y", num("2")));
    });
}
#[test]
fn y_doc_end_marker_reorder() {
    y("schema: s\nx: 1\n...\n", |n| {
        map(n).reverse();
    });
}
#[test]
fn y_explicit_key() {
    y("schema: s\n? x\n: 1\n", |n| {
        map(n).push(ent("y", num("2")));
    });
}
#[test]
fn y_explicit_key_delete() {
    y("schema: s\n? x\n: 1\nz: 2\n", |n| {
        map(n).remove(1);
    });
}
#[test]
#[ignore = "known limitation: explicit `? key` entries are rewritten without their `?`"]
fn y_explicit_key_replace_map() {
    y("schema: s\n? x\n: 1\nz: 2\n", |n| {
        *at(n, "x") = Node::map(vec![("k", s("v"))]);
    });
}
#[test]
fn y_value_on_next_line_after_comment_delete() {
    y("schema: s\na: # c\n  k: 1\nb: 2\n", |n| {
        map(n).remove(1);
    });
}
#[test]
fn y_value_after_comment_insert_nested_first() {
    y("schema: s\na: # c\n  k: 1\nb: 2\n", |n| {
        map(at(n, "a")).insert(0, ent("z", num("1")));
    });
}
#[test]
fn j_nested_compact_in_pretty() {
    j(
        "{\n    \"schema\": \"s\",\n    \"a\": {\"x\": 1, \"y\": 2}\n}\n",
        |n| {
            map(at(n, "a")).push(ent("z", Node::map(vec![("q", num("1"))])));
        },
    );
}
#[test]
fn j_delete_first_two() {
    j("{\"schema\":\"s\",\"a\":1,\"b\":2,\"c\":3}\n", |n| {
        map(n).remove(1);
        map(n).remove(1);
    });
}
#[test]
fn j_blank_line_between() {
    j("{\n  \"schema\": \"s\",\n\n  \"a\": 1\n}\n", |n| {
        map(n).push(ent("b", num("2")));
    });
}
#[test]
fn j_root_reorder_indented() {
    j(
        "  {\n    \"schema\": \"s\",\n    \"a\": {\"x\": 1}\n  }\n",
        |n| {
            map(n).reverse();
        },
    );
}

// ------------- batch 4
fn meta_of(n: &Node) -> fbc_core::catalog::Meta {
    fbc_core::catalog::decode::meta(n, "").unwrap()
}
#[test]
fn y_remove_first_then_add_to() {
    multi(
        "c.yaml",
        "schema: olm.package\nname: p\n---\nschema: olm.package\nname: q\n",
        |c| {
            c.remove_blob(0);
            let b = blob("olm.channel", "p", "c3");
            let m = meta_of(&b);
            c.add_blob_to(0, b, m);
        },
    );
}
#[test]
fn y_remove_mid_then_add_to() {
    multi(
        "c.yaml",
        "schema: olm.package\nname: q\n---\nschema: olm.package\nname: p\n---\nschema: olm.package\nname: r\n",
        |c| {
            c.remove_blob(1);
            let b = blob("olm.channel", "p", "c3");
            let m = meta_of(&b);
            c.add_blob_to(0, b, m);
        },
    );
}
#[test]
fn j_remove_mid_then_add_to() {
    multi(
        "c.json",
        "{\"schema\":\"olm.package\",\"name\":\"q\"}\n{\"schema\":\"olm.package\",\"name\":\"p\"}\n{\"schema\":\"olm.package\",\"name\":\"r\"}\n",
        |c| {
            c.remove_blob(1);
            let b = blob("olm.channel", "p", "c3");
            let m = meta_of(&b);
            c.add_blob_to(0, b, m);
        },
    );
}
#[test]
fn y_add_two() {
    multi(
        "c.yaml",
        "schema: olm.package\nname: p\n---\nschema: olm.package\nname: q\n",
        |c| {
            c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
            c.add_blob(blob("olm.channel", "p", "c4")).unwrap();
        },
    );
}
#[test]
fn y_add_trailing_sep() {
    multi("c.yaml", "schema: olm.package\nname: p\n---\n", |c| {
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn y_add_leading_sep_single() {
    multi("c.yaml", "---\nschema: olm.package\nname: p\n", |c| {
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn y_edit_and_add_nonl() {
    multi("c.yaml", "schema: olm.package\nname: p", |c| {
        c.edit(0, |n| map(n).push(ent("z", s("v"))));
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn y_edit_root_rewrite_and_add() {
    multi("c.yaml", "schema: olm.package\nname: p\n", |c| {
        c.edit(0, |n| map(n).reverse());
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn y_edit_root_rewrite_nonl_and_add() {
    multi("c.yaml", "schema: olm.package\nname: p", |c| {
        c.edit(0, |n| map(n).reverse());
        c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
    });
}
#[test]
fn j_edit_and_add_nonl() {
    multi(
        "c.json",
        "{\"schema\":\"olm.package\",\"name\":\"p\"}",
        |c| {
            c.edit(0, |n| map(n).push(ent("z", s("v"))));
            c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
        },
    );
}
#[test]
fn j_remove_last_nonl() {
    multi(
        "c.json",
        "{\"schema\":\"olm.package\",\"name\":\"p\"}\n{\"schema\":\"olm.package\",\"name\":\"q\"}",
        |c| {
            c.remove_blob(1);
        },
    );
}
#[test]
fn j_remove_first_same_line() {
    multi(
        "c.json",
        "{\"schema\":\"olm.package\",\"name\":\"p\"} {\"schema\":\"olm.package\",\"name\":\"q\"}\n",
        |c| {
            c.remove_blob(0);
        },
    );
}
#[test]
fn j_add_to_yaml_fallback_file() {
    // JSON object then YAML docs (lenient): file format Json but later blobs are YAML
    multi(
        "c.json",
        "{\"schema\":\"olm.package\",\"name\":\"p\"}\nschema: olm.channel\npackage: p\nname: c1\n",
        |c| {
            c.add_blob(blob("olm.channel", "p", "c3")).unwrap();
        },
    );
}
#[test]
fn y_remove_first_with_header_comment() {
    multi(
        "c.yaml",
        "# header\nschema: olm.package\nname: p\n---\nschema: olm.package\nname: q\n",
        |c| {
            c.remove_blob(0);
        },
    );
}
#[test]
fn y_remove_first_and_edit_second_reorder() {
    multi(
        "c.yaml",
        "schema: olm.package\nname: p\n---\nschema: olm.package\nname: q\n",
        |c| {
            c.remove_blob(0);
            c.edit(1, |n| map(n).reverse());
        },
    );
}
#[test]
fn y_remove_all_two() {
    multi(
        "c.yaml",
        "schema: olm.package\nname: p\n---\nschema: olm.package\nname: q\n",
        |c| {
            c.remove_blob(0);
            c.remove_blob(1);
        },
    );
}

// ------------- batch 5: scalar safety
const TRICKY: &[&str] = &[
    "a:b",
    "a :b",
    "-a",
    "a-",
    "?a",
    "a?",
    "a,b",
    "[a",
    "a]",
    "{a}",
    "a#b",
    "a #b",
    "#a",
    "!a",
    "&a",
    "*a",
    "|a",
    ">a",
    "%a",
    "@a",
    "`a",
    "'a",
    "a'",
    "\"a",
    "a\"b",
    "~",
    "null",
    "Null",
    "NULL",
    "y",
    "Y",
    "n",
    "yes",
    "No",
    "on",
    "OFF",
    "true",
    "1",
    "1.0",
    "1e3",
    "0x1F",
    "0o17",
    "0b101",
    "1_000",
    "0777",
    "+1",
    "-1",
    ".5",
    "1.",
    ".inf",
    ".NaN",
    "1:20",
    "190:20:30",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "<<",
    "=",
    "---",
    "...",
    "--- a",
    "... a",
    "a ",
    " a",
    "a\tb",
    "\u{a0}a",
    "a\u{a0}",
    "\u{feff}a",
    "a\u{2028}b",
    "a\u{85}b",
    "é",
    "a\\b",
    "a: b",
    "key:",
    "-",
    "- ",
    ":",
    "::",
    "a::b",
    "\u{1F600}",
    "\u{7f}",
    "!!str",
    "a\r",
    "a\n",
    "\n",
    "a\nb",
    "a\n\nb\n",
    " a\nb",
    "a \nb",
    "a\n b",
    "\ta\nb",
    "a\n\n",
    "a\n#b",
    "a\n---\nb",
    "a\n...\nb",
    "a\u{2028}\nb",
    "0.",
    "-.5",
    "+.5",
    "1e+3",
    "1.5e+3",
    "0x",
    "_1",
    "1__0",
    "0b",
    "0o",
    "-0",
    "00",
    "08",
    "0_8",
    "1,000",
    "12:60",
    "+12:30",
];
#[test]
fn scalar_values_roundtrip() {
    let mut bad = Vec::new();
    for t in TRICKY {
        for (name, f) in [
            (
                "value",
                Box::new(|n: &mut Node| *at(n, "a") = s(t)) as Box<dyn FnOnce(&mut Node)>,
            ),
            ("dq value", Box::new(|n: &mut Node| *at(n, "d") = s(t))),
            ("sq value", Box::new(|n: &mut Node| *at(n, "q") = s(t))),
            ("item", Box::new(|n: &mut Node| *at(n, "l/0") = s(t))),
            (
                "new item",
                Box::new(|n: &mut Node| seq(at(n, "l")).push(s(t))),
            ),
            (
                "new key",
                Box::new(|n: &mut Node| map(n).push(ent(t, s("v")))),
            ),
            (
                "new val",
                Box::new(|n: &mut Node| map(n).push(ent("zz", s(t)))),
            ),
            (
                "new nested",
                Box::new(|n: &mut Node| {
                    map(n).push(ent(
                        "zz",
                        Node::map(vec![(t, Node::seq(vec![s(t), Node::map(vec![(t, s(t))])]))]),
                    ))
                }),
            ),
            ("flow", Box::new(|n: &mut Node| *at(n, "f/0") = s(t))),
        ] {
            let text = "schema: s\na: x\nd: \"x\"\nq: 'x'\nl:\n- x\nf: [x, y]\n";
            let (new, res) = run("c.yaml", text, |c| {
                c.edit(0, f);
            });
            if let Err(e) = res {
                bad.push(format!("{t:?} as {name}: {e}\n{new}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n=====\n"));
}

// ------------- batch 6: random edits of crafted docs
use common::Rng;
fn rscalar(r: &mut Rng) -> Node {
    let w = [
        "plain",
        "yes",
        "1.10",
        "",
        "with: colon",
        "multi\nline\n",
        "a\nb",
        "tab\there",
        "q'd",
        "null",
    ];
    match r.below(5) {
        0 => num(&format!("{}", r.below(100))),
        1 => Node::new(Kind::Bool(true)),
        2 => Node::new(Kind::Null),
        _ => s(w[r.below(w.len())]),
    }
}
fn rval(r: &mut Rng, d: usize) -> Node {
    if d == 0 {
        return rscalar(r);
    }
    match r.below(4) {
        0 => Node::seq((0..r.below(3)).map(|_| rval(r, d - 1))),
        1 => {
            let n = r.below(3);
            Node::new(Kind::Map(
                (0..n)
                    .map(|i| ent(&format!("k{i}"), rval(r, d - 1)))
                    .collect(),
            ))
        }
        _ => rscalar(r),
    }
}
fn mutate(node: &mut Node, r: &mut Rng, depth: usize) {
    let descend = depth < 6 && r.below(3) != 0;
    match &mut node.kind {
        Kind::Map(es) if !es.is_empty() => {
            let i = r.below(es.len());
            if descend && !(depth == 0 && matches!(es[i].key_str(), "schema" | "name")) {
                return mutate(&mut es[i].value, r, depth + 1);
            }
            match r.below(3) {
                0 if depth > 0 || !matches!(es[i].key_str(), "schema" | "name") => {
                    es.remove(i);
                }
                1 => {
                    let k = format!("added{}", r.below(100));
                    if !es.iter().any(|e| e.key_str() == k) {
                        let at = r.below(es.len() + 1);
                        es.insert(at, ent(&k, rval(r, 2)));
                    }
                }
                _ if depth > 0 || !matches!(es[i].key_str(), "schema" | "name") => {
                    es[i].value = rval(r, 2)
                }
                _ => {}
            }
        }
        Kind::Seq(items) if !items.is_empty() => {
            let i = r.below(items.len());
            if descend {
                return mutate(&mut items[i], r, depth + 1);
            }
            match r.below(3) {
                0 => {
                    items.remove(i);
                }
                1 => {
                    let v = rval(r, 2);
                    items.insert(r.below(items.len() + 1), v);
                }
                _ => items[i] = rval(r, 2),
            }
        }
        _ => *node = rval(r, 2),
    }
}
const DOCS: &[&str] = &[
    "schema: s\n# lead\nname: n1\nentries:\n  # c\n  - name: a\n    skips: [x, y]\n    # inner\n  - name: b\n    replaces: a\n    desc: |\n      multi\n      line\n  - - nested\n    - seq\nprops:\n    k: v\n    m:\n        - 1\n        - 2\n",
    "schema: s\r\nname: n1\r\nentries:\r\n- name: a\r\n  skips:\r\n  - x\r\n- name: b\r\n  desc: >\r\n    folded\r\n    text\r\nextra: {}\r\nempty: []\r\n",
    "schema: s\nname: 'n1'\n\"entries\":\n- {name: a, v: 1}\n- name: b\n  v: 2\nobj:\n  deep:\n    deeper:\n      - x\n      - y\nlast: z",
];
#[test]
fn random_crafted() {
    let mut bad = Vec::new();
    for (di, doc) in DOCS.iter().enumerate() {
        for seed in 0..400u64 {
            let mut r = Rng(seed * 7919 + di as u64);
            let edits = 1 + r.below(3);
            let (new, res) = run("c.yaml", doc, |c| {
                for _ in 0..edits {
                    let mut rr = Rng(r.next());
                    c.edit(0, |n| mutate(n, &mut rr, 0));
                }
            });
            if let Err(e) = res {
                bad.push(format!("doc {di} seed {seed}: {e}\n{new}"));
            }
        }
    }
    eprintln!("{} failures", bad.len());
    for b in bad.iter().take(6) {
        eprintln!("=====\n{b}");
    }
    assert!(bad.is_empty());
}
const JDOCS: &[&str] = &[
    "{\"schema\":\"s\",\"name\":\"n\",\"entries\":[{\"name\":\"a\",\"skips\":[\"x\",\"y\"]},{\"name\":\"b\"}],\"p\":{\"k\":{\"d\":[1,2,3]}},\"e\":[],\"o\":{}}",
    "{\n  \"schema\": \"s\",\n  \"name\": \"n\",\n  \"entries\": [\n    {\n      \"name\": \"a\",\n      \"skips\": [\"x\", \"y\"]\n    },\n    {\"name\": \"b\"}\n  ],\n  \"p\": {\n    \"k\": {\n      \"d\": [\n        1,\n        2,\n        3\n      ]\n    }\n  },\n  \"e\": [],\n  \"o\": {}\n}\n",
    "{\r\n\t\"schema\": \"s\",\r\n\t\"name\": \"n\",\r\n\t\"entries\": [\r\n\t\t{\r\n\t\t\t\"name\": \"a\",\r\n\t\t\t\"skips\": [\r\n\t\t\t\t\"x\",\r\n\t\t\t\t\"y\"\r\n\t\t\t]\r\n\t\t}\r\n\t],\r\n\t\"p\": {\r\n\t\t\"k\": 1\r\n\t}\r\n}\r\n",
];
#[test]
fn random_crafted_json() {
    let mut bad = Vec::new();
    for (di, doc) in JDOCS.iter().enumerate() {
        for seed in 0..400u64 {
            let mut r = Rng(seed * 7919 + di as u64);
            let edits = 1 + r.below(3);
            let (new, res) = run("c.json", doc, |c| {
                for _ in 0..edits {
                    let mut rr = Rng(r.next());
                    c.edit(0, |n| mutate(n, &mut rr, 0));
                }
            });
            if let Err(e) = res {
                bad.push(format!("doc {di} seed {seed}: {e}\n{new}"));
            }
        }
    }
    eprintln!("{} failures", bad.len());
    for b in bad.iter().take(4) {
        eprintln!("=====\n{b}");
    }
    assert!(bad.is_empty());
}
#[test]
fn y_null_value_to_map() {
    y("schema: s\na:\nb: 1\n", |n| {
        *at(n, "a") = Node::map(vec![("k", s("v"))]);
    });
}
#[test]
fn y_null_seq_item_to_map() {
    y("schema: s\nl:\n-\n- b\n", |n| {
        *at(n, "l/0") = Node::map(vec![("k", s("v"))]);
    });
}
#[test]
fn y_tilde_value_replace() {
    y("schema: s\na: ~\nb: 1\n", |n| {
        *at(n, "a") = s("x");
    });
}

/// A JSON document behind a UTF-8 byte order mark is read as YAML (as opm reads it); an edit keeps
/// the mark and writes the document as JSON again instead of turning the `.json` file into block
/// YAML.
#[test]
fn j_behind_a_byte_order_mark_stays_json() {
    let text = "\u{feff}{\n    \"schema\": \"olm.package\",\n    \"name\": \"foo\",\n    \"defaultChannel\": \"stable\"\n}\n";
    let n = j(text, |n| *at(n, "defaultChannel") = s("beta"));
    assert_eq!(n, text.replace("\"stable\"", "\"beta\""));
}
