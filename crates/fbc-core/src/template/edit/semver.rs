//! Edits of a semver template: its bundle lists per maturity and its channel settings. Keys are
//! written in the letter case the template already uses (`Stable:`/`Bundles:`/`Image:` in most real
//! templates).

use crate::catalog::node::{Kind, Node, ThinVec};
use crate::edit::{Edit, EditError};
use crate::template::semver::{Maturity, Semver};
use crate::template::source::BundleSource;

use super::doc::key_as_written;
use super::{TemplateDoc, TemplateEditError};

/// A boolean setting of a semver template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SemverFlag {
    GenerateMajorChannels,
    GenerateMinorChannels,
}

impl SemverFlag {
    fn key(self) -> &'static str {
        match self {
            SemverFlag::GenerateMajorChannels => "GenerateMajorChannels",
            SemverFlag::GenerateMinorChannels => "GenerateMinorChannels",
        }
    }
}

/// An edit only a semver template has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SemverEdit {
    /// Lists a bundle image under a maturity (`Candidate`, `Fast`, `Stable`).
    AddBundle {
        image: String,
        maturity: Maturity,
    },
    /// Moves a listed image to another maturity (from every list that holds it).
    MoveBundle {
        image: String,
        to: Maturity,
    },
    /// Takes an image out of every list.
    RemoveBundle {
        image: String,
    },
    SetFlag {
        flag: SemverFlag,
        value: bool,
    },
    /// `DefaultChannelTypePreference`: `major` or `minor`, or `None` to leave it to opm's default.
    SetPreference {
        preference: Option<String>,
    },
}

fn title(m: Maturity) -> &'static str {
    match m {
        Maturity::Candidate => "Candidate",
        Maturity::Fast => "Fast",
        Maturity::Stable => "Stable",
    }
}

impl SemverEdit {
    pub fn describe(&self) -> String {
        match self {
            SemverEdit::AddBundle { image, maturity } => {
                format!("list {image} under {}", title(*maturity))
            }
            SemverEdit::MoveBundle { image, to } => format!("move {image} to {}", title(*to)),
            SemverEdit::RemoveBundle { image } => format!("take {image} out of the template"),
            SemverEdit::SetFlag { flag, value } => format!("set {} to {value}", flag.key()),
            SemverEdit::SetPreference { preference } => match preference {
                Some(p) => format!("set DefaultChannelTypePreference to {p}"),
                None => "leave DefaultChannelTypePreference to opm's default".into(),
            },
        }
    }

    /// The template field the edit is about, for refusals.
    pub fn field(&self) -> &'static str {
        match self {
            SemverEdit::AddBundle { .. }
            | SemverEdit::MoveBundle { .. }
            | SemverEdit::RemoveBundle { .. } => "Candidate/Fast/Stable bundle lists",
            SemverEdit::SetFlag { flag, .. } => flag.key(),
            SemverEdit::SetPreference { .. } => "DefaultChannelTypePreference",
        }
    }
}

/// Reads a maturity from a channel name: `stable`, `Stable`, or a generated `stable-v1.2`.
pub fn maturity_of(channel: &str) -> Option<Maturity> {
    let head = channel.split('-').next().unwrap_or(channel);
    Maturity::ALL
        .into_iter()
        .find(|m| m.as_str().eq_ignore_ascii_case(head))
}

fn cannot(what: &str) -> TemplateEditError {
    TemplateEditError::CannotExpress(format!(
        "a semver template cannot say this: {what}. Its channels, their edges and the default channel are generated from the bundles' versions; to set them by hand, keep the package in a basic template (fbc-edit template from-catalog)"
    ))
}

/// The semver edit a guided edit stands for, or why a semver template cannot express it.
pub(super) fn translate(
    doc: &TemplateDoc,
    s: &Semver,
    edit: &Edit,
    source: &dyn BundleSource,
) -> Result<SemverEdit, TemplateEditError> {
    let maturity = |channel: &str| {
        maturity_of(channel).ok_or_else(|| {
            TemplateEditError::CannotExpress(format!(
                "{}: a semver template lists bundles under Candidate, Fast or Stable, and {channel:?} is none of them",
                doc.name()
            ))
        })
    };
    let no_links = |replaces: &Option<String>, skips: &[String], range: &Option<String>| {
        if replaces.is_some() || !skips.is_empty() || range.is_some() {
            Err(cannot("what a bundle replaces or skips, or its skipRange"))
        } else {
            Ok(())
        }
    };
    match edit {
        Edit::AddBundle {
            bundle,
            channel,
            replaces,
            skips,
            skip_range,
        } => {
            no_links(replaces, skips, skip_range)?;
            let image = bundle
                .get("image")
                .and_then(serde_json::Value::as_str)
                .filter(|i| !i.is_empty())
                .ok_or_else(|| {
                    TemplateEditError::CannotExpress(
                        "a semver template lists bundles by image, and this bundle has none (give its image)".into(),
                    )
                })?;
            Ok(SemverEdit::AddBundle {
                image: image.to_string(),
                maturity: maturity(channel)?,
            })
        }
        Edit::Promote {
            bundle,
            channel,
            replaces,
            skips,
            skip_range,
            ..
        } => {
            no_links(replaces, skips, skip_range)?;
            Ok(SemverEdit::AddBundle {
                image: image_of(s, bundle, source)?,
                maturity: maturity(channel)?,
            })
        }
        Edit::RemoveEntry { entry, .. } => Ok(SemverEdit::RemoveBundle {
            image: image_of(s, entry, source)?,
        }),
        Edit::RemoveBundle { bundle, .. } => Ok(SemverEdit::RemoveBundle {
            image: image_of(s, bundle, source)?,
        }),
        Edit::SetSkipRange { .. } => Err(cannot("a skipRange")),
        Edit::AddSkips { .. } | Edit::RemoveSkips { .. } => Err(cannot("skips")),
        Edit::SetReplaces { .. } => Err(cannot("what an entry replaces")),
        Edit::SetDefaultChannel { .. } => Err(cannot(
            "the default channel (DefaultChannelTypePreference only chooses between major and minor channels)",
        )),
        Edit::CreateChannel { .. } | Edit::DeleteChannel { .. } => {
            Err(cannot("a channel of its own"))
        }
        Edit::Deprecate { .. } | Edit::Undeprecate { .. } => Err(cannot("deprecations")),
    }
}

/// The image of the bundle named `name` among the template's images.
fn image_of(
    s: &Semver,
    name: &str,
    source: &dyn BundleSource,
) -> Result<String, TemplateEditError> {
    for (image, _) in s.images() {
        if let Some(Ok(b)) = source.bundle_for_image(&image)
            && b.get("name").and_then(serde_json::Value::as_str) == Some(name)
        {
            return Ok(image);
        }
    }
    Err(TemplateEditError::Edit(EditError::Catalog(format!(
        "no image of the template renders to a bundle named {name}"
    ))))
}

/// Applies a semver edit to the document; the result must still read as a semver template.
pub(super) fn apply(
    doc: &TemplateDoc,
    s: &Semver,
    edit: &SemverEdit,
) -> Result<Node, TemplateEditError> {
    let mut node = doc.node().clone();
    let capital = key_as_written(&node, "schema").is_some_and(|k| k.starts_with('S'));
    let case = |k: &'static str| -> String {
        if capital {
            k.to_string()
        } else {
            let mut c = k.chars();
            c.next()
                .map(|f| f.to_lowercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        }
    };
    let listed: Vec<Maturity> = Maturity::ALL
        .into_iter()
        .filter(|m| {
            s.lists[*m as usize]
                .iter()
                .any(|b| Some(&b.image) == image(edit))
        })
        .collect();
    match edit {
        SemverEdit::AddBundle { image, maturity } => {
            if listed.contains(maturity) {
                return Err(TemplateEditError::Edit(EditError::Catalog(format!(
                    "{image} is already listed under {}",
                    title(*maturity)
                ))));
            }
            push_image(&mut node, *maturity, image, &case)?;
        }
        SemverEdit::MoveBundle { image, to } => {
            if listed.is_empty() {
                return Err(not_listed(image));
            }
            if listed == [*to] {
                return Err(TemplateEditError::Edit(EditError::Catalog(format!(
                    "{image} is listed under {} only already",
                    title(*to)
                ))));
            }
            for m in &listed {
                remove_image(&mut node, *m, image);
            }
            push_image(&mut node, *to, image, &case)?;
        }
        SemverEdit::RemoveBundle { image } => {
            if listed.is_empty() {
                return Err(not_listed(image));
            }
            for m in &listed {
                remove_image(&mut node, *m, image);
            }
        }
        SemverEdit::SetFlag { flag, value } => {
            set_setting(&mut node, flag.key(), Node::new(Kind::Bool(*value)), &case);
        }
        SemverEdit::SetPreference { preference } => match preference {
            Some(p) => set_setting(
                &mut node,
                "DefaultChannelTypePreference",
                Node::string(p.as_str()),
                &case,
            ),
            None => {
                node.remove_field("DefaultChannelTypePreference");
            }
        },
    }
    crate::template::parse_node(&doc.name(), &doc.inline(&node), Vec::new())?;
    Ok(node)
}

/// Sets a top-level setting; a new one goes after the other settings (`Schema`, `Generate…`,
/// `DefaultChannelTypePreference`), before the bundle lists.
fn set_setting(
    node: &mut Node,
    key: &'static str,
    value: Node,
    case: &dyn Fn(&'static str) -> String,
) {
    if node.get_field(key).is_some() {
        node.set_field(key, value);
        return;
    }
    let Some(entries) = node.as_map_mut() else {
        return;
    };
    let settings = [
        "schema",
        "generatemajorchannels",
        "generateminorchannels",
        "defaultchanneltypepreference",
    ];
    let at = entries
        .iter()
        .rposition(|e| settings.contains(&e.key_str().to_ascii_lowercase().as_str()))
        .map_or(0, |i| i + 1);
    entries.insert(
        at,
        crate::catalog::node::Entry {
            key: Node::string(case(key)),
            value,
        },
    );
}

fn image(edit: &SemverEdit) -> Option<&String> {
    match edit {
        SemverEdit::AddBundle { image, .. }
        | SemverEdit::MoveBundle { image, .. }
        | SemverEdit::RemoveBundle { image } => Some(image),
        _ => None,
    }
}

fn not_listed(image: &str) -> TemplateEditError {
    TemplateEditError::Edit(EditError::Catalog(format!(
        "{image} is not listed in the template"
    )))
}

/// The bundle list of a maturity, created (`<Maturity>: {Bundles: []}`) when missing.
fn list_mut<'a>(
    node: &'a mut Node,
    m: Maturity,
    case: &dyn Fn(&'static str) -> String,
) -> Option<&'a mut ThinVec<Node>> {
    let key = key_as_written(node, m.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| case(title(m)));
    if !matches!(node.get_field(&key).map(|n| &n.kind), Some(Kind::Map(_))) {
        node.set_field(&key, Node::map(vec![]));
    }
    let section = node.get_field_mut(&key)?;
    let bundles = key_as_written(section, "bundles")
        .map(str::to_string)
        .unwrap_or_else(|| case("Bundles"));
    if !matches!(
        section.get_field(&bundles).map(|n| &n.kind),
        Some(Kind::Seq(_))
    ) {
        section.set_field(&bundles, Node::seq(vec![]));
    }
    section.get_field_mut(&bundles)?.as_seq_mut()
}

fn push_image(
    node: &mut Node,
    m: Maturity,
    image: &str,
    case: &dyn Fn(&'static str) -> String,
) -> Result<(), TemplateEditError> {
    let items = list_mut(node, m, case).ok_or_else(|| {
        TemplateEditError::Template(format!(
            "the template's {} list cannot be changed: it is not a mapping",
            title(m)
        ))
    })?;
    let key = items
        .iter()
        .find_map(|i| key_as_written(i, "image").map(str::to_string))
        .unwrap_or_else(|| case("Image"));
    items.push(Node::map(vec![(key.as_str(), Node::string(image))]));
    Ok(())
}

fn remove_image(node: &mut Node, m: Maturity, image: &str) {
    let Some(key) = key_as_written(node, m.as_str()).map(str::to_string) else {
        return;
    };
    let Some(section) = node.get_field_mut(&key) else {
        return;
    };
    let Some(bundles) = key_as_written(section, "bundles").map(str::to_string) else {
        return;
    };
    if let Some(Kind::Seq(items)) = section.get_field_mut(&bundles).map(|n| &mut n.kind) {
        items.retain(|i| {
            key_as_written(i, "image")
                .and_then(|k| i.get_field(k))
                .and_then(Node::as_str)
                != Some(image)
        });
    }
}
