//! OpenShift's operator lifecycle blob, `io.openshift.operators.lifecycles.v1alpha1`
//! (openshift/enhancements `olm/lifecycle-and-compatibility.md`): for each minor version of an
//! operator, its support phases with their dates and the OpenShift versions it runs on.
//!
//! opm keeps it as an opaque blob (`opm serve` hands it to the console's update planner); the
//! checks are in `validate` (its lifecycle lint), the reading here is lenient: a value of the wrong
//! type is left out, so a face can show what there is.

use std::fmt;

use serde::Serialize;

use super::node::Node;
use super::{BlobId, Catalog, PackageIndex};

/// The schema name.
pub const SCHEMA: &str = "io.openshift.operators.lifecycles.v1alpha1";

/// A calendar date (proleptic Gregorian), read only from `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: i32,
    pub month: u32,
    pub day: u32,
}

impl Date {
    /// Reads exactly `YYYY-MM-DD` naming a day that exists (`2024-02-30` does not).
    pub fn parse(s: &str) -> Option<Date> {
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let digits = |r: std::ops::Range<usize>| -> Option<u32> {
            let part = &s[r];
            part.bytes()
                .all(|c| c.is_ascii_digit())
                .then(|| part.parse().ok())
                .flatten()
        };
        let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
        let d = Date {
            year: year as i32,
            month,
            day,
        };
        ((1..=12).contains(&month) && day >= 1 && day <= days_in_month(d.year, month)).then_some(d)
    }

    /// Days since 1970-01-01.
    pub fn days(self) -> i64 {
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// The date `days` days after 1970-01-01.
    pub fn from_days(days: i64) -> Date {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }

    /// The next day.
    pub fn next(self) -> Date {
        Date::from_days(self.days() + 1)
    }

    /// Today in UTC, from the system clock.
    pub fn today() -> Date {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Date::from_days((secs / 86_400) as i64)
    }
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// Whether `s` is `MAJOR.MINOR` (two numbers without leading zeros).
pub fn is_major_minor(s: &str) -> bool {
    let number = |p: &str| {
        !p.is_empty()
            && p.len() <= 9
            && p.bytes().all(|c| c.is_ascii_digit())
            && (p == "0" || !p.starts_with('0'))
    };
    s.split_once('.')
        .is_some_and(|(a, b)| number(a) && number(b))
}

/// A lifecycle blob as far as it reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lifecycle {
    pub package: String,
    pub versions: Vec<LifecycleVersion>,
}

/// One operator version (`MAJOR.MINOR`) and its phases; as JSON, with the blob's own keys.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LifecycleVersion {
    pub name: String,
    pub phases: Vec<Phase>,
    #[serde(rename = "platformCompatibility")]
    pub platforms: Vec<Platform>,
}

/// A support phase; the dates as written (both inclusive).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Phase {
    pub name: String,
    #[serde(rename = "startDate")]
    pub start: String,
    #[serde(rename = "endDate")]
    pub end: String,
}

/// A platform and the versions of it an operator version runs on.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Platform {
    pub name: String,
    pub versions: Vec<String>,
}

/// Where a date falls in a version's phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Today {
    /// Before the first phase starts.
    NotYet,
    /// In the phase at this index.
    In(usize),
    /// After the last phase ended.
    Ended,
    /// The dates do not say (none can be read, or the day falls in a gap).
    Unknown,
}

fn str_of<'n>(n: &'n Node, key: &str) -> &'n str {
    n.get(key).and_then(Node::as_str).unwrap_or_default()
}

fn seq_of<'n>(n: &'n Node, key: &str) -> &'n [Node] {
    n.get(key).and_then(Node::as_seq).unwrap_or_default()
}

impl Lifecycle {
    /// Reads a blob, leniently.
    pub fn read(node: &Node) -> Lifecycle {
        Lifecycle {
            package: str_of(node, "package").to_string(),
            versions: seq_of(node, "versions")
                .iter()
                .map(|v| LifecycleVersion {
                    name: str_of(v, "name").to_string(),
                    phases: seq_of(v, "phases")
                        .iter()
                        .map(|p| Phase {
                            name: str_of(p, "name").to_string(),
                            start: str_of(p, "startDate").to_string(),
                            end: str_of(p, "endDate").to_string(),
                        })
                        .collect(),
                    platforms: seq_of(v, "platformCompatibility")
                        .iter()
                        .map(|p| Platform {
                            name: str_of(p, "name").to_string(),
                            versions: seq_of(p, "versions")
                                .iter()
                                .filter_map(Node::as_str)
                                .map(str::to_string)
                                .collect(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// The lifecycle blobs of a package, in catalog order.
    pub fn of_package(catalog: &Catalog, idx: &PackageIndex) -> Vec<(BlobId, Lifecycle)> {
        idx.others
            .iter()
            .filter(|&&id| catalog.blob(id).schema() == SCHEMA)
            .map(|&id| (id, Lifecycle::read(&catalog.blob(id).value)))
            .collect()
    }
}

impl LifecycleVersion {
    /// Where `today` falls among the phases.
    pub fn today(&self, today: Date) -> Today {
        let dates: Option<Vec<(Date, Date)>> = self
            .phases
            .iter()
            .map(|p| Some((Date::parse(&p.start)?, Date::parse(&p.end)?)))
            .collect();
        let Some(dates) = dates.filter(|d| !d.is_empty()) else {
            return Today::Unknown;
        };
        if let Some(i) = dates.iter().position(|(s, e)| *s <= today && today <= *e) {
            return Today::In(i);
        }
        if dates.iter().all(|(s, _)| today < *s) {
            Today::NotYet
        } else if dates.iter().all(|(_, e)| today > *e) {
            Today::Ended
        } else {
            Today::Unknown
        }
    }

    /// Platform compatibility in one line: `openshift 4.12, 4.13`.
    pub fn platforms_text(&self) -> String {
        self.platforms
            .iter()
            .map(|p| format!("{} {}", p.name, p.versions.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_real_days_written_one_way() {
        assert_eq!(
            Date::parse("2024-02-29").map(|d| d.to_string()),
            Some("2024-02-29".into())
        );
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "2024-1-01",
            "24-01-01",
            "2024/01/01",
            "2024-01-01T00:00:00Z",
            "+024-01-01",
            "",
        ] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
        assert_eq!(Date::parse("1900-02-29"), None);
        assert!(Date::parse("2000-02-29").is_some());
    }

    #[test]
    fn days_count_across_months_years_and_leap_days() {
        let d = |s| Date::parse(s).unwrap();
        assert_eq!(d("1970-01-01").days(), 0);
        assert_eq!(d("2024-02-28").next(), d("2024-02-29"));
        assert_eq!(d("2024-02-29").next(), d("2024-03-01"));
        assert_eq!(d("2023-12-31").next(), d("2024-01-01"));
        assert_eq!(d("2025-01-17").days() - d("2024-07-18").days(), 183);
        for s in ["1600-03-01", "1999-12-31", "2100-02-28", "2400-02-29"] {
            assert_eq!(Date::from_days(d(s).days()), d(s));
        }
    }

    #[test]
    fn versions_are_major_dot_minor() {
        for good in ["4.12", "0.1", "5.0", "10.20"] {
            assert!(is_major_minor(good), "{good}");
        }
        for bad in [
            "4", "4.12.1", "v4.12", "04.12", "4.012", "4.", ".4", "4.x", "",
        ] {
            assert!(!is_major_minor(bad), "{bad}");
        }
    }

    #[test]
    fn today_finds_the_phase_in_effect() {
        let v = LifecycleVersion {
            name: "4.17".into(),
            phases: vec![
                Phase {
                    name: "Full support".into(),
                    start: "2024-10-01".into(),
                    end: "2025-05-25".into(),
                },
                Phase {
                    name: "Maintenance support".into(),
                    start: "2025-05-26".into(),
                    end: "2026-04-01".into(),
                },
            ],
            platforms: Vec::new(),
        };
        let at = |s| v.today(Date::parse(s).unwrap());
        assert_eq!(at("2024-09-30"), Today::NotYet);
        assert_eq!(at("2024-10-01"), Today::In(0));
        assert_eq!(at("2025-05-25"), Today::In(0));
        assert_eq!(at("2025-05-26"), Today::In(1));
        assert_eq!(at("2026-04-01"), Today::In(1));
        assert_eq!(at("2026-04-02"), Today::Ended);
    }
}
