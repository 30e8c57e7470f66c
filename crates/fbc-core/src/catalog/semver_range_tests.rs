use super::*;

const VERSIONS: [&str; 12] = [
    "0.9.0",
    "1.0.0-alpha",
    "1.0.0",
    "1.0.5",
    "1.1.0",
    "1.5.0-rc.1",
    "1.9.9",
    "2.0.0-0",
    "2.0.0-rc.1",
    "2.0.0",
    "2.1.0",
    "3.0.0",
];

fn matching(range: &str) -> Result<Vec<&'static str>, RangeError> {
    let r = Range::parse(range)?;
    Ok(VERSIONS
        .iter()
        .copied()
        .filter(|v| r.matches(&Version::parse(v).unwrap()))
        .collect())
}

/// Ranges and the versions blang/semver v4 matches among `VERSIONS`.
#[test]
fn ranges_match_like_blang() {
    let all = VERSIONS.to_vec();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            ">=1.0.0 <2.0.0",
            vec![
                "1.0.0",
                "1.0.5",
                "1.1.0",
                "1.5.0-rc.1",
                "1.9.9",
                "2.0.0-0",
                "2.0.0-rc.1",
            ],
        ),
        (
            ">=1.0.0 <2.0.0-0",
            vec!["1.0.0", "1.0.5", "1.1.0", "1.5.0-rc.1", "1.9.9"],
        ),
        (
            "> 1.0.0",
            vec![
                "1.0.5",
                "1.1.0",
                "1.5.0-rc.1",
                "1.9.9",
                "2.0.0-0",
                "2.0.0-rc.1",
                "2.0.0",
                "2.1.0",
                "3.0.0",
            ],
        ),
        (
            ">= 1.0.0 < 2.0.0",
            vec![
                "1.0.0",
                "1.0.5",
                "1.1.0",
                "1.5.0-rc.1",
                "1.9.9",
                "2.0.0-0",
                "2.0.0-rc.1",
            ],
        ),
        (
            "  >=1.0.0   <2.0.0  ",
            vec![
                "1.0.0",
                "1.0.5",
                "1.1.0",
                "1.5.0-rc.1",
                "1.9.9",
                "2.0.0-0",
                "2.0.0-rc.1",
            ],
        ),
        (
            "<2.0.0 >=1.0.0",
            vec![
                "1.0.0",
                "1.0.5",
                "1.1.0",
                "1.5.0-rc.1",
                "1.9.9",
                "2.0.0-0",
                "2.0.0-rc.1",
            ],
        ),
        (
            "<1.0.0 || >=2.0.0",
            vec!["0.9.0", "1.0.0-alpha", "2.0.0", "2.1.0", "3.0.0"],
        ),
        ("1.0.0", vec!["1.0.0"]),
        ("=1.0.0", vec!["1.0.0"]),
        ("==1.0.0", vec!["1.0.0"]),
        (
            "!1.0.0",
            all.iter().copied().filter(|v| *v != "1.0.0").collect(),
        ),
        (
            "!=1.0.0",
            all.iter().copied().filter(|v| *v != "1.0.0").collect(),
        ),
        (
            "1.x",
            vec![
                "1.0.0",
                "1.0.5",
                "1.1.0",
                "1.5.0-rc.1",
                "1.9.9",
                "2.0.0-0",
                "2.0.0-rc.1",
            ],
        ),
        ("1.0.x", vec!["1.0.0", "1.0.5"]),
        ("1.x.x", vec!["1.0.0", "1.0.5"]),
        (
            "<=1.x",
            vec![
                "0.9.0",
                "1.0.0-alpha",
                "1.0.0",
                "1.0.5",
                "1.1.0",
                "1.5.0-rc.1",
                "1.9.9",
                "2.0.0-0",
                "2.0.0-rc.1",
            ],
        ),
        (">1.x", vec!["2.0.0", "2.1.0", "3.0.0"]),
        (
            ">=1.x",
            vec![
                "1.0.0",
                "1.0.5",
                "1.1.0",
                "1.5.0-rc.1",
                "1.9.9",
                "2.0.0-0",
                "2.0.0-rc.1",
                "2.0.0",
                "2.1.0",
                "3.0.0",
            ],
        ),
        ("<1.0.x", vec!["0.9.0", "1.0.0-alpha"]),
        ("!=1.0.x", vec![]),
        (
            ">=1.0.0 a <2.0.0",
            vec![
                "1.0.0",
                "1.0.5",
                "1.1.0",
                "1.5.0-rc.1",
                "1.9.9",
                "2.0.0-0",
                "2.0.0-rc.1",
            ],
        ),
        (
            ">=1.0.0-x.1",
            vec![
                "1.0.0",
                "1.0.5",
                "1.1.0",
                "1.5.0-rc.1",
                "1.9.9",
                "2.0.0-0",
                "2.0.0-rc.1",
                "2.0.0",
                "2.1.0",
                "3.0.0",
            ],
        ),
        ("<0.9.0", vec![]),
        (">=0.0.0", all.clone()),
        (">1.9.9 <=2.0.0", vec!["2.0.0-0", "2.0.0-rc.1", "2.0.0"]),
        ("<1.0.0-beta", vec!["0.9.0", "1.0.0-alpha"]),
        ("1.0.0+build.5", vec!["1.0.0"]),
        (">=2.0.0-rc.1 <2.0.0", vec!["2.0.0-rc.1"]),
        (
            "<1.0.0 || 2.x || 3.0.0",
            vec!["0.9.0", "1.0.0-alpha", "2.0.0", "2.1.0", "3.0.0"],
        ),
    ];
    for (range, want) in cases {
        assert_eq!(matching(range), Ok(want), "{range}");
    }
}

#[test]
fn range_errors_match_blang() {
    let cases = [
        (
            ">=1.0.0,<2.0.0",
            "Could not parse Range \">=1.0.0,<2.0.0\": Could not parse version \"1.0.0,<2.0.0\" in \">=1.0.0,<2.0.0\": Invalid character(s) found in patch number \"0,<2.0.0\"",
        ),
        ("", "Last element in range is '||'"),
        ("*", "Last element in range is '||'"),
        ("x", "Last element in range is '||'"),
        ("1", "Last element in range is '||'"),
        ("|| 1.0.0", "First element in range is '||'"),
        ("1.0.0 ||", "Last element in range is '||'"),
        (
            "1.X",
            "Could not parse Range \"1.X\": Could not parse version \"1.X\" in \"1.X\": No Major.Minor.Patch elements found",
        ),
        (
            "~1.0.0",
            "Could not parse Range \"~1.0.0\": Could not parse comparator \"~\" in \"~1.0.0\"",
        ),
        (
            "^1.0.0",
            "Could not parse Range \"^1.0.0\": Could not parse comparator \"^\" in \"^1.0.0\"",
        ),
        (
            ">v0.1.0",
            "Could not parse Range \">v0.1.0\": Could not parse comparator \">v\" in \">v0.1.0\"",
        ),
        (
            "1.0",
            "Could not parse Range \"1.0\": Could not parse version \"1.0\" in \"1.0\": No Major.Minor.Patch elements found",
        ),
        (
            ">1.00.1",
            "Could not parse Range \">1.00.1\": Could not parse version \"1.00.1\" in \">1.00.1\": Minor number must not contain leading zeroes \"00\"",
        ),
        ("1.0.0-xyz", "Could not get version from string: \"<\""),
        ("<=1.0.0-rc.x", "Could not get version from string: \"<\""),
        (
            "<1.0.0||>=2.0.0",
            "Could not parse Range \"<1.0.0||>=2.0.0\": Could not parse version \"1.0.0||>=2.0.0\" in \"<1.0.0||>=2.0.0\": Invalid character(s) found in patch number \"0||>=2.0.0\"",
        ),
        ("abc", "Could not get version from string: \"abc\""),
    ];
    for (range, want) in cases {
        assert_eq!(
            Range::parse(range).err().map(|e| e.to_string()),
            Some(want.to_string()),
            "{range:?}"
        );
    }
    assert!(
        Range::parse(">=1.0.0\t<2.0.0").is_err(),
        "a tab is not a separator"
    );
}

#[test]
fn releases_follow_opm() {
    assert_eq!(parse_release(""), Ok(vec![]));
    assert_eq!(
        parse_release("2.alpha-1"),
        Ok(vec![Pre::Num(2), Pre::Alpha("alpha-1".into())])
    );
    assert_eq!(
        parse_release("123456789012345678901")
            .err()
            .map(|e| e.to_string()),
        Some(
            "invalid release \"123456789012345678901\": exceeds maximum length of 20 characters"
                .into()
        )
    );
    assert_eq!(
        parse_release("01..a_b").err().map(|e| e.to_string()),
        Some("invalid release \"01..a_b\": segment 0: Numeric PreRelease version must not contain leading zeroes \"01\"\nsegment 1: Prerelease is empty\nsegment 2: Invalid character(s) found in prerelease \"a_b\"".into())
    );
}

#[test]
fn one_character_tokens_are_reported_as_dropped() {
    let r = Range::parse(">=1.0.0 a <2.0.0").unwrap();
    assert_eq!(r.dropped, vec!["a".to_string()]);
}

#[test]
fn versions_parse_and_order_like_blang() {
    let errors = [
        ("", "Version string empty"),
        ("1.0", "No Major.Minor.Patch elements found"),
        (
            "v1.0.0",
            "Invalid character(s) found in major number \"v1\"",
        ),
        (
            "01.0.0",
            "Major number must not contain leading zeroes \"01\"",
        ),
        (
            "1.0.0.1",
            "Invalid character(s) found in patch number \"0.1\"",
        ),
        ("1..0", "strconv.ParseUint: parsing \"\": invalid syntax"),
        ("1.0.0-", "Prerelease is empty"),
        (
            "1.0.0-a_b",
            "Invalid character(s) found in prerelease \"a_b\"",
        ),
        (
            "1.0.0-01",
            "Numeric PreRelease version must not contain leading zeroes \"01\"",
        ),
        ("1.0.0+", "Build meta data is empty"),
        (
            "99999999999999999999.0.0",
            "strconv.ParseUint: parsing \"99999999999999999999\": value out of range",
        ),
    ];
    for (v, want) in errors {
        assert_eq!(
            Version::parse(v).err().map(|e| e.to_string()),
            Some(want.to_string()),
            "{v:?}"
        );
    }
    let sorted = [
        "1.0.0-0",
        "1.0.0-1",
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-beta",
        "1.0.0",
        "1.0.1",
        "1.1.0",
    ];
    for w in sorted.windows(2) {
        assert!(
            Version::parse(w[0]).unwrap() < Version::parse(w[1]).unwrap(),
            "{w:?}"
        );
    }
    assert_eq!(
        Version::parse("1.0.0+a").unwrap(),
        Version::parse("1.0.0+b").unwrap()
    );
    assert_eq!(
        Version::parse("3.11.2+0.1718224960.p").unwrap().to_string(),
        "3.11.2+0.1718224960.p"
    );
}
