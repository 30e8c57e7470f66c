use super::*;
use crate::catalog::yaml::parse_one as parse;
use crate::catalog::yaml::split_documents;

/// `levels` anchors, each a sequence of `width` aliases to the one before ("billion laughs").
fn alias_bomb(levels: usize, width: usize) -> String {
    let mut text = format!("a0: &a0 [{}]\n", vec!["lol"; width].join(","));
    for i in 1..levels {
        let prev = format!("*a{}", i - 1);
        text.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; width].join(",")));
    }
    text
}

/// A long string aliased many times passes go-yaml's count of nodes (a few hundred nodes) but
/// would copy hundreds of times the document's size: refused once the copies pass the limit.
#[test]
fn a_long_string_aliased_over_and_over_is_refused() {
    let long = "\\n".repeat(100_000); // 200 KiB of text, 100 KiB of value: kept in memory
    let aliases = |n: usize| vec!["*s"; n].join(", ");
    let text = format!("s: &s \"{long}\"\nx: [{}]\n", aliases(300));
    let (chunks, _) = split_documents(&text, 0, 1);
    let err = parse_chunk(&text, chunks[0], 0).err().expect("refused");
    assert!(
        err.message
            .contains("its aliases would copy more than 16 MiB of text, from a document of"),
        "{}",
        err.message
    );
    assert_eq!(err.line, 2);
    // Ten copies are fine.
    let text = format!("s: &s \"{long}\"\nx: [{}]\n", aliases(10));
    let (chunks, _) = split_documents(&text, 0, 1);
    assert!(parse_chunk(&text, chunks[0], 0).is_ok());
}

#[test]
fn an_alias_bomb_is_refused_before_it_is_expanded() {
    let text = alias_bomb(10, 10);
    let (chunks, _) = split_documents(&text, 0, 1);
    let err = parse_chunk(&text, chunks[0], 0).err().expect("refused");
    assert!(
        err.message.contains("excessive aliasing"),
        "{}",
        err.message
    );
    // The alias that tips the balance, long before a billion nodes are made.
    assert_eq!(err.line, 4);
}

#[test]
fn moderate_aliasing_is_read_as_go_yaml_reads_it() {
    // 100 aliased nodes are always allowed, however small the document.
    let small = "base: &b {a: 1, b: 2, c: 3, d: 4}\nx: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n";
    let n = parse(small);
    let Kind::Map(entries) = &n.kind else {
        panic!()
    };
    let Kind::Seq(items) = &entries[1].value.kind else {
        panic!()
    };
    assert_eq!(items.len(), 10);
    assert_eq!(
        items[9], entries[0].value,
        "an alias reads as its anchored value"
    );
    // Two levels of ten: 1,320 of 1,357 nodes decoded through aliases (97 %): allowed.
    let text = alias_bomb(3, 10);
    let (chunks, _) = split_documents(&text, 0, 1);
    assert!(parse_chunk(&text, chunks[0], 0).is_ok());
    // A third level passes 99 % at its third alias, as go-yaml counts.
    let text = alias_bomb(4, 10);
    let (chunks, _) = split_documents(&text, 0, 1);
    let err = parse_chunk(&text, chunks[0], 0).err().expect("refused");
    assert_eq!((err.line, err.col), (4, 18), "the third alias of `a3`");
}

#[test]
fn merge_keys_count_what_they_merge() {
    let n = parse("base: &b {a: 1}\nm:\n  <<: *b\n  c: 2\n");
    let Kind::Map(entries) = &n.kind else {
        panic!()
    };
    assert_eq!(
        entries[1].value.get_field("a").map(|v| v.pos().is_real()),
        Some(false)
    );
}

/// The document read by the full reader and, where it does not decline, by the quick one:
/// both must give the same tree.
fn both(text: &str) -> Result<Node, YamlError> {
    let (chunks, errs) = split_documents(text, 0, 1);
    assert!(errs.is_empty());
    let full = parse_chunk_full(text, chunks[0], 0).map(|d| d.node);
    if let Ok(full) = &full {
        let quick = parse_chunk(text, chunks[0], 0).unwrap().node;
        assert_eq!(format!("{quick:?}"), format!("{full:?}"), "{text:?}");
    }
    full
}

fn at<'n>(n: &'n Node, path: &[&str]) -> &'n Node {
    path.iter().fold(n, |n, k| n.get(k).unwrap())
}

// The values below are what go-yaml v2.4.0 (`yaml.Unmarshal`) reads from the same text.

#[test]
fn quoted_lines_may_start_left_of_their_key_as_in_go_yaml() {
    let text = "a:\n  b: 'x\n  y\nz'\n  c: d\n";
    let n = both(text).unwrap();
    let b = at(&n, &["a", "b"]);
    assert_eq!(b.as_str(), Some("x y z"));
    assert_eq!(b.style(), Style::SingleQuoted);
    // Its place is that of the text as written, and what follows it keeps its own.
    assert_eq!((b.pos().line, b.pos().col), (2, 6));
    assert_eq!(b.pos().start as usize, text.find('\'').unwrap());
    assert!(text[..b.pos().end as usize].ends_with("z'"));
    let c = at(&n, &["a", "c"]);
    assert_eq!(c.as_str(), Some("d"));
    assert_eq!((c.pos().line, c.pos().col), (5, 6));
    assert_eq!(c.pos().start as usize, text.rfind('d').unwrap());

    let n = both("outer:\n  inner: \"x\ny\"\n  next: 1\n").unwrap();
    assert_eq!(at(&n, &["outer", "inner"]).as_str(), Some("x y"));
    assert!(matches!(&at(&n, &["outer", "next"]).kind, Kind::Number(x) if &**x == "1"));
    let n = both("outer:\n  - 'x\n y'\n").unwrap();
    assert_eq!(
        at(&n, &["outer"]).as_seq().unwrap()[0].as_str(),
        Some("x y")
    );
    let n = both("outer:\n  inner: \"x\n#y\"\n").unwrap();
    assert_eq!(at(&n, &["outer", "inner"]).as_str(), Some("x #y"));
}

#[test]
fn quoted_lines_fold_as_in_go_yaml_wherever_they_start() {
    // Blank lines are kept as line breaks, leading blanks dropped, an escaped break joins.
    let n = both("k:\n  v: \"one\n\n two\nthree\"\n").unwrap();
    assert_eq!(at(&n, &["k", "v"]).as_str(), Some("one\ntwo three"));
    let n = both("k:\n  v: \"a\\\nb\"\n").unwrap();
    assert_eq!(at(&n, &["k", "v"]).as_str(), Some("ab"));
    let n = both("outer:\n  inner: 'x  \n \t y  '\n  next: 1\n").unwrap();
    assert_eq!(at(&n, &["outer", "inner"]).as_str(), Some("x y  "));
}

#[test]
fn quoted_lines_may_be_indented_with_tabs_as_in_go_yaml() {
    let n = both("k:\n  v: 'a\n\tb'\n").unwrap();
    assert_eq!(at(&n, &["k", "v"]).as_str(), Some("a b"));
    let n = both("outer:\n  inner: 'x\n  \n\t\n z'\n").unwrap();
    assert_eq!(at(&n, &["outer", "inner"]).as_str(), Some("x\n\nz"));
}

#[test]
fn a_document_marker_inside_a_quoted_scalar_is_still_an_error() {
    // go-yaml: "found unexpected document indicator". The marker ends the document here, so
    // the scalar is never closed.
    let text = "outer:\n  inner: 'x\n...\n'\n";
    let (chunks, _) = split_documents(text, 0, 1);
    let Err(err) = parse_chunk_full(text, chunks[0], 0) else {
        panic!("read")
    };
    assert!(err.message.contains("quoted scalar"), "{err:?}");
    assert_eq!(err.line, 2);
    // A quoted scalar that never closes is refused however it is indented.
    let text = "a:\n  b: 'x\ny\n";
    let (chunks, _) = split_documents(text, 0, 1);
    assert!(parse_chunk_full(text, chunks[0], 0).is_err());
}

#[test]
fn errors_after_a_repaired_scalar_keep_their_columns() {
    // The scalar is read after indenting its second line; the stray `]` after it is placed
    // in the text as written (go-yaml refuses it too: "did not find expected key").
    let text = "a:\n  b: 'x\ny' ]\n";
    let (chunks, _) = split_documents(text, 0, 1);
    let Err(err) = parse_chunk_full(text, chunks[0], 0) else {
        panic!("read")
    };
    assert_eq!((err.line, err.col), (3, 4), "{err:?}");
}

#[test]
fn applies_yaml11_scalars_and_positions() {
    let n = parse(
        "schema: olm.bundle\nv: 1.10\nq: \"1.10\"\nb: yes\nnone: ~\non: 1\nlist:\n- a\n- 'b'\n",
    );
    assert_eq!(n.get("schema").unwrap().as_str(), Some("olm.bundle"));
    assert!(matches!(&n.get("v").unwrap().kind, Kind::Number(x) if &**x == "1.1"));
    assert_eq!(n.get("q").unwrap().as_str(), Some("1.10"));
    assert!(matches!(n.get("b").unwrap().kind, Kind::Bool(true)));
    assert!(n.get("none").unwrap().is_null());
    // A key that YAML 1.1 reads as a boolean becomes "true", as in opm's YAML-to-JSON conversion.
    assert!(n.get("true").is_some() && n.get("on").is_none());
    let list = n.get("list").unwrap();
    assert_eq!(list.pos().line, 8);
    assert_eq!(list.pos().col, 1);
    let b = &list.as_seq().unwrap()[1];
    assert_eq!(b.style(), Style::SingleQuoted);
    assert_eq!(b.pos().line, 9);
    assert_eq!((b.pos().start, b.pos().end), (70, 73));
}

#[test]
fn positions_are_bytes_with_non_ascii_text() {
    let text = "d: \"héllo wörld\"\nk: x\n";
    let n = parse(text);
    let x = n.get("k").unwrap();
    assert_eq!(&text[x.pos().start as usize..x.pos().end as usize], "x");
}

/// A block sequence at its key's column whose first item is empty, with a comment after its dash,
/// starts at that dash, as the quick reader has it (the comment was taken for the item's text).
#[test]
fn a_sequence_whose_first_item_is_a_comment_starts_at_its_dash() {
    let text = "a: 1\nb:\n- # a note\n- x\n";
    let (chunks, _) = split_documents(text, 0, 1);
    let doc = parse_chunk_full(text, chunks[0], 0).unwrap();
    let b = doc.node.get("b").unwrap().pos();
    assert_eq!((b.start, b.line, b.col), (8, 3, 1));
}

/// The same with the quick reader first: it leaves such a scalar to the full reader rather than
/// read the string as running on over the marker.
#[test]
fn a_document_marker_inside_a_quoted_scalar_is_an_error_whichever_reader_tries_first() {
    for marker in ["...", "---"] {
        let text = format!("a: 1\nb: 'runs\n{marker}\n  on'\n");
        let err = parse_chunk(
            &text,
            Chunk {
                start: 0,
                end: text.len(),
                line: 1,
            },
            0,
        )
        .err()
        .expect("refused");
        assert_eq!(
            (err.line, err.message.as_str()),
            (
                2,
                "while scanning a quoted scalar, found unexpected document indicator"
            )
        );
    }
}

/// A chain of sequence items each holding a mapping nests two levels a line: read past the quick
/// reader's depth, it goes to the full reader, which refuses it at its own limit, rather than
/// running the reader out of stack.
#[test]
fn a_deep_chain_of_items_is_refused_not_a_crash() {
    let mut text = String::from("a:\n");
    for i in 0..3000 {
        text.push_str(&" ".repeat(2 * i));
        text.push_str("- k:\n");
    }
    let chunk = Chunk {
        start: 0,
        end: text.len(),
        line: 1,
    };
    let err = parse_chunk(&text, chunk, 0).err().expect("refused");
    assert_eq!(
        (err.line, err.message.as_str()),
        (129, "document nested deeper than 256 levels")
    );
}
