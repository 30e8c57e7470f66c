//! The palette's semver-template edits (`:add-image REF stable`, `:move-image`, `:remove-image`,
//! `:generate major on`, `:channel-preference minor`): what only a semver template's model has. Each
//! is applied to every open template it applies to and says what it changes in the rendering.

use crate::template::edit::{SemverEdit, SemverFlag, TemplateEdit, maturity_of};
use crate::tui::model::{Effect, Model};

/// Runs a semver palette command; the status line says what happened. An image no rendering has
/// looked up yet is looked up on a worker first ([`Effect::LookUpImage`]), and the edit is made
/// when it is back ([`apply`]).
pub(crate) fn palette(m: &mut Model, cmd: &str, arg: &str) -> Vec<Effect> {
    let edit = match parse(cmd, arg) {
        Ok(e) => e,
        Err(usage) => {
            m.status = Some(usage);
            return Vec::new();
        }
    };
    let unknown = match (&edit, m.loaded().and_then(|l| l.ws.templates())) {
        (TemplateEdit::Semver(SemverEdit::AddBundle { image, .. }), Some(set))
            if !set.memo().knows(image) =>
        {
            Some(image.clone())
        }
        _ => None,
    };
    if let Some(image) = unknown {
        let said = format!("looking up {image}…");
        m.busy = Some(said.clone());
        m.status = Some(said);
        return vec![Effect::LookUpImage {
            image,
            edit: Box::new(edit),
        }];
    }
    apply(m, edit);
    Vec::new()
}

/// Makes a semver edit; the status line says what it changed.
pub(crate) fn apply(m: &mut Model, edit: TemplateEdit) {
    let what = edit.describe();
    let Some(l) = m.loaded_mut() else { return };
    m.status = Some(match l.ws.apply_template(edit) {
        Ok(o) => {
            l.refresh();
            let mut said = if o.introduced.is_empty() {
                format!("{what} (u undoes, w writes)")
            } else {
                format!(
                    "{what}: {} (u undoes)",
                    crate::text::plural(o.introduced.len(), "new problem", "new problems")
                )
            };
            for n in o.notes {
                said.push_str(" · ");
                said.push_str(&n);
            }
            said
        }
        Err(e) => format!("cannot {what}: {e}"),
    });
}

/// The edit a palette line asks for, or how to write it.
fn parse(cmd: &str, arg: &str) -> Result<TemplateEdit, String> {
    let words: Vec<&str> = arg.split_whitespace().collect();
    let usage = |u: &str| format!("usage: {cmd} {u}");
    let edit = match (cmd, words.as_slice()) {
        ("add-image", [image, maturity]) => SemverEdit::AddBundle {
            image: image.to_string(),
            maturity: maturity_of(maturity).ok_or_else(|| usage("REF candidate|fast|stable"))?,
        },
        ("move-image", [image, maturity]) => SemverEdit::MoveBundle {
            image: image.to_string(),
            to: maturity_of(maturity).ok_or_else(|| usage("REF candidate|fast|stable"))?,
        },
        ("remove-image", [image]) => SemverEdit::RemoveBundle {
            image: image.to_string(),
        },
        ("generate", [which, value]) => SemverEdit::SetFlag {
            flag: match *which {
                "major" => SemverFlag::GenerateMajorChannels,
                "minor" => SemverFlag::GenerateMinorChannels,
                _ => return Err(usage("major|minor on|off")),
            },
            value: match *value {
                "on" | "true" => true,
                "off" | "false" => false,
                _ => return Err(usage("major|minor on|off")),
            },
        },
        ("channel-preference", [p @ ("major" | "minor")]) => SemverEdit::SetPreference {
            preference: Some(p.to_string()),
        },
        ("channel-preference", ["none"]) => SemverEdit::SetPreference { preference: None },
        ("add-image" | "move-image", _) => return Err(usage("REF candidate|fast|stable")),
        ("remove-image", _) => return Err(usage("REF")),
        ("generate", _) => return Err(usage("major|minor on|off")),
        _ => return Err(usage("major|minor|none")),
    };
    Ok(TemplateEdit::Semver(edit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_lines_read_as_semver_edits() {
        assert_eq!(
            parse("generate", "major on"),
            Ok(TemplateEdit::Semver(SemverEdit::SetFlag {
                flag: SemverFlag::GenerateMajorChannels,
                value: true
            }))
        );
        assert_eq!(
            parse("channel-preference", "none"),
            Ok(TemplateEdit::Semver(SemverEdit::SetPreference {
                preference: None
            }))
        );
        assert_eq!(
            parse("add-image", "quay.io/a/b:1 Stable").map(|e| e.describe()),
            Ok("list quay.io/a/b:1 under Stable".to_string())
        );
        assert_eq!(
            parse("add-image", "quay.io/a/b:1 beta"),
            Err("usage: add-image REF candidate|fast|stable".to_string())
        );
        assert_eq!(
            parse("generate", "both"),
            Err("usage: generate major|minor on|off".to_string())
        );
    }
}
