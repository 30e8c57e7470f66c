use super::*;
use proptest::prelude::*;
use saphyr_parser::{Event, Parser, ScalarStyle};

#[test]
fn versions_and_words_are_refused_at_once_and_numbers_are_not() {
    for s in [
        "1.2.3",
        "0.0.1-rc.1",
        "4.18.0+build",
        "1.0.0-beta",
        "1.2.x",
        "3.1-ga",
    ] {
        assert!(surely_not_number(s), "{s}");
        assert_eq!(resolve_plain(s), Plain::Str, "{s}");
    }
    for s in [
        "1.10", "010", "0x1F", "0o17", "0b101", "-1_000", "+.5", "1e3", "1.", "12",
    ] {
        assert!(!surely_not_number(s), "{s}");
        assert_ne!(resolve_plain(s), Plain::Str, "{s}");
    }
}

fn int(s: &str) -> Plain {
    Plain::Int(s.into())
}
fn float(s: &str) -> Plain {
    Plain::Float(s.into())
}

#[test]
fn resolves_like_opm() {
    let t = Plain::Bool(true);
    let f = Plain::Bool(false);
    let cases: Vec<(&str, Plain)> = vec![
        // Booleans: exactly these spellings.
        ("y", t.clone()),
        ("Y", t.clone()),
        ("yes", t.clone()),
        ("Yes", t.clone()),
        ("YES", t.clone()),
        ("on", t.clone()),
        ("On", t.clone()),
        ("ON", t.clone()),
        ("true", t.clone()),
        ("True", t.clone()),
        ("TRUE", t.clone()),
        ("n", f.clone()),
        ("N", f.clone()),
        ("no", f.clone()),
        ("No", f.clone()),
        ("NO", f.clone()),
        ("off", f.clone()),
        ("Off", f.clone()),
        ("OFF", f.clone()),
        ("false", f.clone()),
        ("False", f.clone()),
        ("FALSE", f.clone()),
        ("yEs", Plain::Str),
        ("oN", Plain::Str),
        ("tRUE", Plain::Str),
        ("t", Plain::Str),
        ("f", Plain::Str),
        // Nulls.
        ("", Plain::Null),
        ("~", Plain::Null),
        ("null", Plain::Null),
        ("Null", Plain::Null),
        ("NULL", Plain::Null),
        ("nULL", Plain::Str),
        ("~~", Plain::Str),
        // Integers.
        ("0", int("0")),
        ("00", int("0")),
        ("010", int("8")),
        ("-010", int("-8")),
        ("0x1F", int("31")),
        ("0X1f", int("31")),
        ("-0x1F", int("-31")),
        ("+0x1F", int("31")),
        ("0o17", int("15")),
        ("0O17", int("15")),
        ("0b101", int("5")),
        ("0B101", int("5")),
        ("-0b101", int("-5")),
        ("0b-101", int("-5")),
        ("0b+101", int("5")),
        ("0B-101", Plain::Str),
        ("1_000", int("1000")),
        ("1__0", int("10")),
        ("1_", int("1")),
        ("0x_1F", int("31")),
        ("_1", Plain::Str),
        ("+1", int("1")),
        ("-0", int("0")),
        ("-9223372036854775808", int("-9223372036854775808")),
        ("9223372036854775807", int("9223372036854775807")),
        ("18446744073709551615", int("18446744073709551615")),
        ("0xFFFFFFFFFFFFFFFF", int("18446744073709551615")),
        // Integers out of range fall back to floats when they look like one.
        ("18446744073709551616", float("18446744073709552000")),
        ("+18446744073709551615", float("18446744073709552000")),
        ("-9223372036854775809", float("-9223372036854776000")),
        ("0x10000000000000000", Plain::Str),
        ("0x", Plain::Str),
        ("0b", Plain::Str),
        ("0b2", Plain::Str),
        ("08", float("8")),
        ("09.5", float("9.5")),
        ("0o8", Plain::Str),
        // Floats.
        ("1.10", float("1.1")),
        ("1.0", float("1")),
        ("1.", float("1")),
        ("-0.0", float("-0")),
        ("+1.5", float("1.5")),
        ("1e3", float("1000")),
        ("1E3", float("1000")),
        ("1e+3", float("1000")),
        ("1_e3", float("1000")),
        ("1_000.5", float("1000.5")),
        ("1e21", float("1e+21")),
        ("1e20", float("100000000000000000000")),
        ("1e-6", float("0.000001")),
        ("1e-7", float("1e-7")),
        ("1.5e-10", float("1.5e-10")),
        ("-1.5e300", float("-1.5e+300")),
        ("123456789012345678901234", float("1.2345678901234569e+23")),
        ("1e400", Plain::Str),
        ("1e-400", float("0")),
        (".5", float("0.5")),
        ("+.5", float("0.5")),
        ("-.5", float("-0.5")),
        (".5e3", float("500")),
        (".5E-1", float("0.05")),
        (".5_5", float("0.55")),
        (".5e1_0", float("5000000000")),
        ("._5", Plain::Str),
        (".5_", Plain::Str),
        (".5__5", Plain::Str),
        (".e3", Plain::Str),
        ("..5", Plain::Str),
        (".5.5", Plain::Str),
        (".1e400", Plain::Str),
        ("1e", Plain::Str),
        ("1e+", Plain::Str),
        ("0x1p3", Plain::Str),
        // Not finite.
        (".inf", Plain::NonFinite),
        (".Inf", Plain::NonFinite),
        ("+.INF", Plain::NonFinite),
        ("-.Inf", Plain::NonFinite),
        (".nan", Plain::NonFinite),
        (".NaN", Plain::NonFinite),
        (".NAN", Plain::NonFinite),
        (".iNf", Plain::Str),
        ("+.nan", Plain::Str),
        ("inf", Plain::Str),
        ("-inf", Plain::Str),
        ("NaN", Plain::Str),
        // Strings.
        ("1.2.3", Plain::Str),
        ("v1", Plain::Str),
        ("v1.0.0", Plain::Str),
        ("2001-12-14", Plain::Str),
        ("2001-12-14T21:59:43.10Z", Plain::Str),
        ("190:20:30", Plain::Str),
        ("-", Plain::Str),
        ("+", Plain::Str),
        ("=", Plain::Str),
        ("<<", Plain::Str),
        ("1,000", Plain::Str),
        ("1 000", Plain::Str),
        (">=1.0.0 <2.0.0", Plain::Str),
        ("olm.channel", Plain::Str),
        ("yes please", Plain::Str),
    ];
    assert!(cases.len() >= 40);
    for (input, want) in cases {
        assert_eq!(resolve_plain(input), want, "{input:?}");
    }
}

#[test]
fn traps() {
    for s in ["yes", "Off", "~", "", "1.10", "0x1F", ".inf", "<<", "0b-1"] {
        assert!(is_yaml11_trap(s), "{s:?}");
    }
    for s in ["2001-12-14", "190:20:30", "=", "v1", "1.2.3", "NaN", "yEs"] {
        assert!(!is_yaml11_trap(s), "{s:?}");
    }
}

#[test]
fn sexagesimal() {
    for s in ["190:20:30", "-1:20", "+1_0:5:59.5_", "1:2", "1:59."] {
        assert!(is_base60(s), "{s:?}");
    }
    for s in [
        "1:60", "1:", ":1", "1:2:", "a1:2", "1:2:3a", "1:123", "1:2.3.4",
    ] {
        assert!(!is_base60(s), "{s:?}");
    }
}

fn written(s: &str, q: QuoteStyle) -> String {
    let mut out = String::new();
    write_scalar_str(&mut out, s, q);
    out
}

#[test]
fn writes_like_opm() {
    use QuoteStyle::{Double, Plain as P, Single};
    let cases = [
        ("olm.channel", P, "olm.channel"),
        ("quay.io/x/y@sha256:0abc", P, "quay.io/x/y@sha256:0abc"),
        (">=1.0.0 <2.0.0", P, "'>=1.0.0 <2.0.0'"),
        ("it's", P, "it's"),
        ("a#b", P, "a#b"),
        ("1.2.3", P, "1.2.3"),
        ("yes", P, "\"yes\""),
        ("1.10", P, "\"1.10\""),
        ("", P, "\"\""),
        ("", Single, "''"),
        ("2001-12-14", P, "\"2001-12-14\""),
        ("190:20:30", P, "\"190:20:30\""),
        ("<<", P, "\"<<\""),
        ("=", P, "'='"),
        ("a: b", P, "'a: b'"),
        ("a, b", P, "'a, b'"),
        ("x?y", P, "'x?y'"),
        ("- x", P, "'- x'"),
        (" lead", P, "' lead'"),
        ("it's", Single, "'it''s'"),
        ("yes", Single, "'yes'"),
        ("a\nb", Single, "\"a\\nb\""),
        ("tab\there", P, "\"tab\\there\""),
        ("q\"b\\", Double, "\"q\\\"b\\\\\""),
        (
            "\u{7}\u{85}\u{2028}\u{FEFF}",
            Double,
            "\"\\u0007\\u0085\\u2028\\uFEFF\"",
        ),
        ("é ü ✓", P, "é ü ✓"),
    ];
    for (s, q, want) in cases {
        assert_eq!(written(s, q), want, "{s:?} {q:?}");
    }
}

/// The scalars of a YAML text, with their styles, as a YAML 1.2 reader sees them.
fn scalars(text: &str) -> Result<Vec<(String, ScalarStyle)>, TestCaseError> {
    let mut parser = Parser::new_from_str(text);
    let mut out = Vec::new();
    while let Some(ev) = parser.next_event() {
        let (ev, _) = ev.map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
        if let Event::Scalar(v, style, _, tag) = ev {
            if tag.is_some() {
                return Err(TestCaseError::fail(format!(
                    "{text:?}: unexpected tag on {v:?}"
                )));
            }
            out.push((v.into_owned(), style));
        }
    }
    Ok(out)
}

/// The string a scalar stands for under opm's rules (`None` when it is not a string).
fn as_string((v, style): &(String, ScalarStyle)) -> Option<String> {
    match style {
        ScalarStyle::Plain => (resolve_plain(v) == Plain::Str && v != "<<").then(|| v.clone()),
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => Some(v.clone()),
        _ => None,
    }
}

/// Reads `written` back from every place a writer puts a scalar; `Err` names the first failure.
fn check_read_back(s: &str, written: &str) -> Result<(), TestCaseError> {
    if written.contains(['\n', '\r']) {
        return Err(TestCaseError::fail("scalar spans lines"));
    }
    // (document, positions of the written scalar, scalars in all)
    let places: [(String, &[usize], usize); 8] = [
        (format!("k: {written}\n"), &[1], 2),
        (format!("{written}: v\n"), &[0], 2),
        (format!("- {written}\n"), &[0], 1),
        (format!("{written}\n"), &[0], 1),
        (format!("a:\n  b: {written}\n  c: d\n"), &[2], 5),
        (format!("k: [{written}, x]\n"), &[1], 3),
        (format!("k: {{{written}: v, x: {written}}}\n"), &[1, 4], 5),
        (format!("[{written}]\n"), &[0], 1),
    ];
    for (doc, at, count) in places {
        let got = scalars(&doc)?;
        if got.len() != count {
            return Err(TestCaseError::fail(format!("{doc:?}: read {got:?}")));
        }
        for &i in at {
            if as_string(&got[i]).as_deref() != Some(s) {
                return Err(TestCaseError::fail(format!("{doc:?}: read {:?}", got[i])));
            }
        }
    }
    Ok(())
}

#[test]
fn fixed_strings_read_back() {
    for s in [
        "yes",
        "no",
        "y",
        "n",
        "~",
        "",
        "1.10",
        "010",
        "<<",
        "=",
        "- x",
        "yes -",
        "a -",
        "a - b",
        "a -b",
        "a-",
        "a: b",
        "#x",
        "a #b",
        " lead",
        "trail ",
        "'",
        "\"",
        "\n",
        "\t",
        "\r\n",
        "\\",
        "---",
        "...",
        "--- x",
        "?",
        ":",
        "a:",
        "x?y",
        "a,b",
        "[x]",
        "{y}",
        "*a",
        "&a",
        "!t",
        "%p",
        "@a",
        "`b",
        "|",
        ">",
        "\u{85}",
        "\u{2028}",
        "\u{FEFF}x",
        "\u{FFFE}",
        "\u{0}",
        "é",
        "\u{A0}lead",
    ] {
        for q in [QuoteStyle::Plain, QuoteStyle::Single, QuoteStyle::Double] {
            let w = written(s, q);
            if let Err(e) = check_read_back(s, &w) {
                panic!("{s:?} written as {w}: {e}");
            }
        }
    }
}

/// go-yaml v2 refuses input characters outside YAML 1.1's printable set, and folds its line
/// breaks (which include U+0085, U+2028 and U+2029) in plain and single-quoted scalars; YAML 1.2
/// readers do not, so the read-back tests above cannot see these.
#[test]
fn output_is_printable_and_single_line_for_yaml11() {
    let printable = |c: char| matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..);
    let is_break = |c: char| matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}');
    for c in (0..=0x10FFFF).filter_map(char::from_u32) {
        let s = format!("a{c}b");
        for q in [QuoteStyle::Plain, QuoteStyle::Single, QuoteStyle::Double] {
            let w = written(&s, q);
            assert!(w.chars().all(printable), "{s:?} written as {w:?}");
            assert!(!w.contains(is_break), "{s:?} written as {w:?}");
            if !w.starts_with('"') {
                assert!(!w.contains('\t'), "{s:?} written as {w:?}");
            }
        }
    }
}

fn tricky() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "yes",
            "no",
            "on",
            "off",
            "y",
            "n",
            "Y",
            "N",
            "NO",
            "Off",
            "true",
            "False",
            "null",
            "Null",
            "~",
            "1.10",
            "1.0",
            "010",
            "08",
            "0x1F",
            "0o17",
            "0b101",
            "1_000",
            "1e3",
            ".5",
            "-.5",
            "+1",
            "-0",
            ".inf",
            "-.Inf",
            ".nan",
            "<<",
            "=",
            "2001-12-14",
            "190:20:30",
            "1.2.3",
            "v1",
            "- x",
            "-x",
            "a: b",
            "a:b",
            "a:",
            ":",
            "?",
            "? x",
            "#x",
            "a #b",
            "a#b",
            " lead",
            "trail ",
            " ",
            "",
            "'",
            "''",
            "\"",
            "\\",
            "\n",
            "\n\n",
            "\t",
            "\r",
            "\r\n",
            "é ü",
            "✓",
            "😀",
            "\u{A0}",
            "\u{85}",
            "\u{2028}",
            "\u{2029}",
            "\u{FEFF}",
            "\u{FFFE}",
            "\u{FFFF}",
            "\u{0}",
            "\u{7F}",
            "\u{9F}",
            "[x]",
            "{y}",
            "x,y",
            ",",
            "*a",
            "&a",
            "!t",
            "!!str",
            "%p",
            "@a",
            "`b",
            "|",
            ">",
            "---",
            "...",
            "--- x",
            "... x",
            "%YAML 1.1",
        ])
        .prop_map(String::from),
        "\\PC{0,12}",
        "[ -~\n\t]{0,12}",
        prop::collection::vec(any::<char>(), 0..6).prop_map(|v| v.into_iter().collect()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, .. ProptestConfig::default() })]

    #[test]
    fn every_written_string_reads_back_the_same(
        a in tricky(),
        b in tricky(),
        c in tricky(),
        style in prop::sample::select(vec![QuoteStyle::Plain, QuoteStyle::Single, QuoteStyle::Double]),
    ) {
        let s = format!("{a}{b}{c}");
        let w = written(&s, style);
        if let Err(e) = check_read_back(&s, &w) {
            return Err(TestCaseError::fail(format!("{s:?} written as {w}: {e}")));
        }
        if style == QuoteStyle::Plain && !w.starts_with(['\'', '"']) {
            prop_assert!(plain_is_safe(&s));
        }
    }

    #[test]
    fn resolution_is_total_and_numbers_are_json(s in tricky()) {
        match resolve_plain(&s) {
            Plain::Int(n) | Plain::Float(n) => {
                let v: serde_json::Value = serde_json::from_str(&n).unwrap();
                prop_assert!(v.is_number(), "{:?} gave {}", s, n);
            }
            _ => {}
        }
        prop_assert!(!(is_yaml11_trap(&s) && plain_is_safe(&s)));
    }

    #[test]
    fn the_quick_refusal_refuses_only_what_is_no_number(
        s in prop_oneof![
            "[-+]?[0-9_.]{1,10}",
            "[-+]?0[bBoOxX][0-9a-fA-F_.]{0,8}",
            "[-+]?[0-9.]{1,6}[eE][-+]?[0-9]{1,3}",
            "[0-9a-fA-FxXoO_+.eE -]{1,12}",
            "[0-9][ -~]{0,10}",
        ],
    ) {
        if surely_not_number(&s) {
            prop_assert_eq!(read_number(&s), Plain::Str, "{:?}", s);
        }
    }

    #[test]
    fn numbers_match_rust_parsing(n in any::<i64>(), f in any::<f64>()) {
        prop_assert_eq!(resolve_plain(&n.to_string()), Plain::Int(n.to_string()));
        if f.is_finite() {
            let text = format!("{f:e}");
            let Plain::Float(got) = resolve_plain(&text) else {
                return Err(TestCaseError::fail(format!("{text} is not a float")));
            };
            prop_assert_eq!(got.parse::<f64>().unwrap(), f);
        }
    }
}
