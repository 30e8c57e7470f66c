//! The tree's problem markers: the worst severity of each package, channel and entry.

use std::collections::HashMap;

use fbc_core::catalog::Severity;
use fbc_core::validate::Report;

/// The worst severity of the problems of each package, channel and entry, for the tree's markers,
/// gathered in one pass over the report.
#[derive(Default)]
pub(crate) struct Markers {
    packages: HashMap<String, Severity>,
    channels: HashMap<(String, String), Severity>,
    /// (package, bundle, channel or "" for any channel).
    entries: HashMap<(String, String, String), Severity>,
}

impl Markers {
    pub(crate) fn new(report: &Report) -> Markers {
        Markers::of(report, None)
    }

    /// The markers of one package's objects only (or of every package).
    pub(crate) fn of(report: &Report, only: Option<&str>) -> Markers {
        fn worse(slot: &mut Severity, s: Severity) {
            if s < *slot {
                *slot = s;
            }
        }
        let mut m = Markers::default();
        for d in &report.diagnostics {
            let Some(p) = &d.object.package else { continue };
            if only.is_some_and(|o| o != p) {
                continue;
            }
            worse(
                m.packages.entry(p.clone()).or_insert(Severity::Info),
                d.severity,
            );
            let ch = d.object.channel.clone().unwrap_or_default();
            if !ch.is_empty() {
                worse(
                    m.channels
                        .entry((p.clone(), ch.clone()))
                        .or_insert(Severity::Info),
                    d.severity,
                );
            }
            if let Some(b) = &d.object.bundle {
                worse(
                    m.entries
                        .entry((p.clone(), b.clone(), ch))
                        .or_insert(Severity::Info),
                    d.severity,
                );
            }
        }
        m
    }

    pub(crate) fn symbol(s: Option<&Severity>) -> &'static str {
        match s {
            Some(Severity::Error) => "  ✖",
            Some(Severity::Warning) => "  ⚠",
            _ => "",
        }
    }

    pub(crate) fn package(&self, p: &str) -> &'static str {
        Self::symbol(self.packages.get(p))
    }

    pub(crate) fn channel(&self, p: &str, c: &str) -> &'static str {
        Self::symbol(self.channels.get(&(p.to_string(), c.to_string())))
    }

    pub(crate) fn entry(&self, p: &str, c: &str, e: &str) -> &'static str {
        let key = |ch: &str| (p.to_string(), e.to_string(), ch.to_string());
        let here = self.entries.get(&key(c));
        let any = self.entries.get(&key(""));
        Self::symbol(match (here, any) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        })
    }
}
