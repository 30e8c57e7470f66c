//! The `edit` tool's arguments turned into the engine's edits, as `fbc-edit edit VERB` turns its
//! flags into them: a catalog [`Edit`], or a [`TemplateEdit`] for the verbs only templates have.

use std::path::Path;

use fbc_core::edit::{Edit, Target};
use fbc_core::template::edit::{
    SemverEdit, SemverFlag, SubstitutesEdit, TemplateEdit, maturity_of,
};
use serde_json::Value;

use crate::args::{EditArgs, Verb};
use crate::error::ToolError;

/// The value of a required argument, or a refusal naming it.
fn need<'a>(verb: Verb, name: &str, v: &'a Option<String>) -> Result<&'a String, ToolError> {
    v.as_ref()
        .ok_or_else(|| ToolError::refused(format!("{} needs {name}", verb.name())))
}

/// A list of entry names, empty names dropped.
fn names(v: &Option<Vec<String>>) -> Vec<String> {
    v.iter()
        .flatten()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// Arguments that mean nothing to the verb are refused, as the command line refuses an unknown
/// flag, so a misspelt intent is never dropped silently.
fn only(args: &EditArgs, allowed: &[&str]) -> Result<(), ToolError> {
    let given: [(&str, bool); 18] = [
        ("package", args.package.is_some()),
        ("channel", args.channel.is_some()),
        ("bundle", args.bundle.is_some()),
        ("entry", args.entry.is_some()),
        ("skips", args.skips.is_some()),
        ("skip_range", args.skip_range.is_some()),
        ("range", args.range.is_some()),
        ("clear", args.clear),
        ("replaces", args.replaces.is_some()),
        ("relink", args.relink),
        ("message", args.message.is_some()),
        ("from", args.from.is_some()),
        ("image", args.image.is_some()),
        ("csv_metadata", args.csv_metadata),
        ("major", args.major.is_some()),
        ("minor", args.minor.is_some()),
        ("preference", args.preference.is_some()),
        ("base", args.base.is_some()),
    ];
    let extra: Vec<&str> = given
        .iter()
        .filter(|(name, set)| *set && !allowed.contains(name))
        .map(|(name, _)| *name)
        .collect();
    if extra.is_empty() {
        Ok(())
    } else {
        Err(ToolError::refused(format!(
            "{} takes no {} (it takes: {})",
            args.edit.name(),
            extra.join(", "),
            allowed.join(", ")
        )))
    }
}

/// Refuses the arguments `verb` does not take.
pub fn only_its_own(args: &EditArgs) -> Result<(), ToolError> {
    only(args, arguments(args.edit))
}

/// The value of a required argument of the verb, or a refusal naming it.
pub fn required<'a>(
    args: &'a EditArgs,
    name: &str,
    v: &'a Option<String>,
) -> Result<&'a String, ToolError> {
    need(args.edit, name, v)
}

/// The arguments each verb takes.
pub fn arguments(verb: Verb) -> &'static [&'static str] {
    match verb {
        Verb::Promote => &[
            "package",
            "bundle",
            "channel",
            "skips",
            "skip_range",
            "replaces",
        ],
        Verb::SetDefaultChannel | Verb::DeleteChannel => &["package", "channel"],
        Verb::CreateChannel => &["package", "channel", "bundle"],
        Verb::AddSkips | Verb::RemoveSkips => &["package", "channel", "entry", "skips"],
        Verb::SetSkipRange => &["package", "channel", "entry", "range", "clear"],
        Verb::SetReplaces => &["package", "channel", "entry", "replaces"],
        Verb::RemoveEntry => &["package", "channel", "entry"],
        Verb::RemoveBundle => &["package", "bundle", "relink"],
        Verb::Deprecate => &["package", "channel", "bundle", "message"],
        Verb::Undeprecate => &["package", "channel", "bundle"],
        Verb::AddBundle => &[
            "from",
            "image",
            "channel",
            "skips",
            "skip_range",
            "replaces",
            "csv_metadata",
        ],
        Verb::Release => &["from", "image"],
        Verb::AddImage | Verb::MoveImage => &["image", "channel"],
        Verb::RemoveImage => &["image"],
        Verb::SetGenerate => &["major", "minor"],
        Verb::SetChannelPreference => &["preference"],
        Verb::Substitute => &["base", "image", "from"],
        Verb::Unsubstitute => &["base"],
    }
}

fn target(args: &EditArgs) -> Result<Target, ToolError> {
    Ok(match (&args.channel, &args.bundle) {
        (Some(_), Some(_)) => {
            return Err(ToolError::refused(format!(
                "{} takes channel or bundle, not both",
                args.edit.name()
            )));
        }
        (Some(c), None) => Target::Channel(c.clone()),
        (None, Some(b)) => Target::Bundle(b.clone()),
        (None, None) => Target::Package,
    })
}

/// A rendered bundle directory and what could not be read in it.
pub type Rendered = (Value, Vec<String>);

/// The catalog edit the arguments ask for. `from`, add-bundle's directory, is already resolved and
/// rendered by the caller (`rendered`).
pub fn catalog_edit(args: &EditArgs, rendered: Option<Rendered>) -> Result<Edit, ToolError> {
    let v = args.edit;
    only(args, arguments(v))?;
    let s = |name: &str, o: &Option<String>| need(v, name, o).cloned();
    Ok(match v {
        Verb::Promote => Edit::Promote {
            package: s("package", &args.package)?,
            bundle: s("bundle", &args.bundle)?,
            channel: s("channel", &args.channel)?,
            replaces: args.replaces.clone(),
            skips: names(&args.skips),
            skip_range: args.skip_range.clone(),
        },
        Verb::SetDefaultChannel => Edit::SetDefaultChannel {
            package: s("package", &args.package)?,
            channel: s("channel", &args.channel)?,
        },
        Verb::CreateChannel => Edit::CreateChannel {
            package: s("package", &args.package)?,
            channel: s("channel", &args.channel)?,
            bundle: s("bundle", &args.bundle)?,
        },
        Verb::DeleteChannel => Edit::DeleteChannel {
            package: s("package", &args.package)?,
            channel: s("channel", &args.channel)?,
        },
        Verb::AddSkips | Verb::RemoveSkips => {
            let skips = names(&args.skips);
            if skips.is_empty() {
                return Err(ToolError::refused(format!("{} needs skips", v.name())));
            }
            let (package, channel, entry) = (
                s("package", &args.package)?,
                s("channel", &args.channel)?,
                s("entry", &args.entry)?,
            );
            if v == Verb::AddSkips {
                Edit::AddSkips {
                    package,
                    channel,
                    entry,
                    skips,
                }
            } else {
                Edit::RemoveSkips {
                    package,
                    channel,
                    entry,
                    skips,
                }
            }
        }
        Verb::SetSkipRange => {
            let range = match (&args.range, args.clear) {
                (Some(_), true) => {
                    return Err(ToolError::refused(
                        "set-skip-range takes range or clear, not both",
                    ));
                }
                (None, false) => {
                    return Err(ToolError::refused("set-skip-range needs range (or clear)"));
                }
                (r, _) => r.clone(),
            };
            Edit::SetSkipRange {
                package: s("package", &args.package)?,
                channel: s("channel", &args.channel)?,
                entry: s("entry", &args.entry)?,
                range,
            }
        }
        Verb::SetReplaces => Edit::SetReplaces {
            package: s("package", &args.package)?,
            channel: s("channel", &args.channel)?,
            entry: s("entry", &args.entry)?,
            replaces: Some(s("replaces", &args.replaces)?),
        },
        Verb::RemoveEntry => Edit::RemoveEntry {
            package: s("package", &args.package)?,
            channel: s("channel", &args.channel)?,
            entry: s("entry", &args.entry)?,
        },
        Verb::RemoveBundle => Edit::RemoveBundle {
            package: s("package", &args.package)?,
            bundle: s("bundle", &args.bundle)?,
            relink: args.relink,
        },
        Verb::Deprecate => Edit::Deprecate {
            package: s("package", &args.package)?,
            target: target(args)?,
            message: s("message", &args.message)?,
        },
        Verb::Undeprecate => Edit::Undeprecate {
            package: s("package", &args.package)?,
            target: target(args)?,
        },
        Verb::AddBundle => {
            let channel = s("channel", &args.channel)?;
            let (bundle, _) =
                rendered.ok_or_else(|| ToolError::refused("add-bundle needs from"))?;
            Edit::AddBundle {
                bundle,
                channel,
                replaces: args.replaces.clone(),
                skips: names(&args.skips),
                skip_range: args.skip_range.clone(),
            }
        }
        Verb::Release
        | Verb::AddImage
        | Verb::MoveImage
        | Verb::RemoveImage
        | Verb::SetGenerate
        | Verb::SetChannelPreference
        | Verb::Substitute
        | Verb::Unsubstitute => {
            return Err(ToolError::refused(
                "this edit is for templates, not catalogs",
            ));
        }
    })
}

/// The template edit the arguments ask for.
pub fn template_edit(
    args: &EditArgs,
    rendered: Option<Rendered>,
) -> Result<TemplateEdit, ToolError> {
    let v = args.edit;
    only(args, arguments(v))?;
    let maturity = |c: &str| {
        maturity_of(c).ok_or_else(|| {
            ToolError::refused(format!("{c:?} is none of Candidate, Fast and Stable"))
        })
    };
    let image = || need(v, "image", &args.image).cloned();
    Ok(match v {
        Verb::AddImage => TemplateEdit::Semver(SemverEdit::AddBundle {
            image: image()?,
            maturity: maturity(need(v, "channel", &args.channel)?)?,
        }),
        Verb::MoveImage => TemplateEdit::Semver(SemverEdit::MoveBundle {
            image: image()?,
            to: maturity(need(v, "channel", &args.channel)?)?,
        }),
        Verb::RemoveImage => TemplateEdit::Semver(SemverEdit::RemoveBundle { image: image()? }),
        Verb::SetGenerate => {
            let (flag, value) = match (args.major, args.minor) {
                (Some(x), None) => (SemverFlag::GenerateMajorChannels, x),
                (None, Some(x)) => (SemverFlag::GenerateMinorChannels, x),
                _ => return Err(ToolError::refused("give one of major and minor")),
            };
            TemplateEdit::Semver(SemverEdit::SetFlag { flag, value })
        }
        Verb::SetChannelPreference => {
            let p = need(v, "preference", &args.preference)?;
            if !["major", "minor", "none"].contains(&p.as_str()) {
                return Err(ToolError::refused(format!(
                    "preference {p:?} is none of major, minor and none"
                )));
            }
            TemplateEdit::Semver(SemverEdit::SetPreference {
                preference: (p != "none").then(|| p.clone()),
            })
        }
        Verb::Substitute => TemplateEdit::Substitutes(SubstitutesEdit::Add {
            image: image()?,
            base: need(v, "base", &args.base)?.clone(),
        }),
        Verb::Unsubstitute => TemplateEdit::Substitutes(SubstitutesEdit::Remove {
            base: need(v, "base", &args.base)?.clone(),
        }),
        Verb::AddBundle if args.image.is_none() => {
            return Err(ToolError::refused(
                "a template lists a bundle by its image: give image",
            ));
        }
        _ => TemplateEdit::Catalog(catalog_edit(args, rendered)?),
    })
}

/// Renders add-bundle's bundle directory (`dir`, resolved inside the served directories).
pub fn render_bundle(dir: &Path, args: &EditArgs) -> Result<Rendered, ToolError> {
    use fbc_core::bundle;
    if bundle::detect(dir) != Some(bundle::Format::RegistryV1) {
        return Err(ToolError::refused(format!(
            "{} is not a registry+v1 bundle directory (it needs manifests/ and metadata/)",
            args.from.as_deref().unwrap_or_default()
        )));
    }
    let opts = bundle::RenderOptions {
        image: args.image.clone(),
        csv_metadata: args.csv_metadata,
        related: bundle::RelatedOrder::default(),
    };
    bundle::render_dir_noting(dir, &opts).map_err(|e| {
        ToolError::refused(format!(
            "cannot render {}: {e}",
            args.from.as_deref().unwrap_or_default()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: serde_json::Value) -> EditArgs {
        serde_json::from_value(v).unwrap()
    }

    fn refusal(a: &EditArgs) -> String {
        catalog_edit(a, None).unwrap_err().to_string()
    }

    #[test]
    fn flags_become_the_edit_the_command_line_builds() {
        let a = args(
            serde_json::json!({"path": ".", "edit": "promote", "package": "p",
            "bundle": "p.v2", "channel": "stable", "skips": ["p.v1", " ", "p.v0"],
            "skip_range": "<2.0.0"}),
        );
        assert_eq!(
            catalog_edit(&a, None).unwrap(),
            Edit::Promote {
                package: "p".into(),
                bundle: "p.v2".into(),
                channel: "stable".into(),
                replaces: None,
                skips: vec!["p.v1".into(), "p.v0".into()],
                skip_range: Some("<2.0.0".into()),
            }
        );
        let a = args(
            serde_json::json!({"path": ".", "edit": "set-skip-range", "package": "p",
            "channel": "c", "entry": "e", "clear": true}),
        );
        assert!(matches!(
            catalog_edit(&a, None).unwrap(),
            Edit::SetSkipRange { range: None, .. }
        ));
    }

    #[test]
    fn missing_and_stray_arguments_are_refused_by_name() {
        let a = args(
            serde_json::json!({"path": ".", "edit": "promote", "package": "p",
            "channel": "c"}),
        );
        assert_eq!(refusal(&a), "promote needs bundle");
        let a = args(
            serde_json::json!({"path": ".", "edit": "remove-entry", "package": "p",
            "channel": "c", "entry": "e", "range": ">1.0.0"}),
        );
        assert!(
            refusal(&a).starts_with("remove-entry takes no range"),
            "{}",
            refusal(&a)
        );
        let a = args(
            serde_json::json!({"path": ".", "edit": "set-skip-range", "package": "p",
            "channel": "c", "entry": "e", "range": ">1.0.0", "clear": true}),
        );
        assert_eq!(refusal(&a), "set-skip-range takes range or clear, not both");
        let a = args(
            serde_json::json!({"path": ".", "edit": "add-image", "image": "i",
            "channel": "Stable"}),
        );
        assert_eq!(refusal(&a), "this edit is for templates, not catalogs");
        let a = args(
            serde_json::json!({"path": ".", "edit": "add-image", "image": "i",
            "channel": "beta"}),
        );
        assert!(
            template_edit(&a, None)
                .unwrap_err()
                .to_string()
                .contains("none of Candidate")
        );
        // An unknown argument or verb is not an edit at all.
        assert!(
            serde_json::from_value::<EditArgs>(serde_json::json!({"path": ".",
            "edit": "promote", "pakage": "p"}))
            .is_err()
        );
        assert!(
            serde_json::from_value::<EditArgs>(serde_json::json!({"path": ".",
            "edit": "rename"}))
            .is_err()
        );
    }
}
