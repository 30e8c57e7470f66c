//! The palette's semver-template edits (`:add-image REF stable`, `:move-image`, `:remove-image`,
//! `:generate major on`, `:channel-preference minor`) and substitutes-template edits (`:substitute
//! REF BASE`, `:unsubstitute BASE`): what only those templates' models have. Each is applied to
//! every open template it applies to and says what it changes in the rendering.

use crate::tui::keymap::Verb;
use crate::tui::model::{Effect, Model};
use fbc_core::template::edit::{
    SemverEdit, SemverFlag, SubstitutesEdit, TemplateEdit, maturity_of,
};

/// Runs a semver palette command; the status line says what happened. An image no rendering has
/// looked up yet is looked up on a worker first ([`Effect::LookUpImage`]), and the edit is made
/// when it is back ([`apply`]).
pub(crate) fn palette(m: &mut Model, verb: Verb, arg: &str) -> Vec<Effect> {
    let edit = match parse(verb, arg) {
        Ok(e) => e,
        Err(usage) => {
            m.status = Some(usage);
            return Vec::new();
        }
    };
    let unknown = match (&edit, m.loaded().and_then(|l| l.ws.templates())) {
        (
            TemplateEdit::Semver(SemverEdit::AddBundle { image, .. })
            | TemplateEdit::Substitutes(SubstitutesEdit::Add { image, .. }),
            Some(set),
        ) if !set.memo().knows(image) => Some(image.clone()),
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
                    fbc_core::text::plural(o.introduced.len(), "new problem", "new problems")
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

/// The edit a palette line asks for, or how to write it (the verb's arguments, as the palette's
/// table gives them).
fn parse(verb: Verb, arg: &str) -> Result<TemplateEdit, String> {
    let words: Vec<&str> = arg.split_whitespace().collect();
    let usage = || format!("usage: {}{}", verb.name(), verb.args());
    let edit = match (verb, words.as_slice()) {
        (Verb::Substitute, [image, base]) => {
            return Ok(TemplateEdit::Substitutes(SubstitutesEdit::Add {
                image: image.to_string(),
                base: base.to_string(),
            }));
        }
        (Verb::Unsubstitute, [base]) => {
            return Ok(TemplateEdit::Substitutes(SubstitutesEdit::Remove {
                base: base.to_string(),
            }));
        }
        (Verb::AddImage, [image, maturity]) => SemverEdit::AddBundle {
            image: image.to_string(),
            maturity: maturity_of(maturity).ok_or_else(usage)?,
        },
        (Verb::MoveImage, [image, maturity]) => SemverEdit::MoveBundle {
            image: image.to_string(),
            to: maturity_of(maturity).ok_or_else(usage)?,
        },
        (Verb::RemoveImage, [image]) => SemverEdit::RemoveBundle {
            image: image.to_string(),
        },
        (Verb::Generate, [which, value]) => SemverEdit::SetFlag {
            flag: match *which {
                "major" => SemverFlag::GenerateMajorChannels,
                "minor" => SemverFlag::GenerateMinorChannels,
                _ => return Err(usage()),
            },
            value: match *value {
                "on" | "true" => true,
                "off" | "false" => false,
                _ => return Err(usage()),
            },
        },
        (Verb::ChannelPreference, [p @ ("major" | "minor")]) => SemverEdit::SetPreference {
            preference: Some(p.to_string()),
        },
        (Verb::ChannelPreference, ["none"]) => SemverEdit::SetPreference { preference: None },
        _ => return Err(usage()),
    };
    Ok(TemplateEdit::Semver(edit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_lines_read_as_semver_edits() {
        assert_eq!(
            parse(Verb::Generate, "major on"),
            Ok(TemplateEdit::Semver(SemverEdit::SetFlag {
                flag: SemverFlag::GenerateMajorChannels,
                value: true
            }))
        );
        assert_eq!(
            parse(Verb::ChannelPreference, "none"),
            Ok(TemplateEdit::Semver(SemverEdit::SetPreference {
                preference: None
            }))
        );
        assert_eq!(
            parse(Verb::AddImage, "quay.io/a/b:1 Stable").map(|e| e.describe()),
            Ok("list quay.io/a/b:1 under Stable".to_string())
        );
        assert_eq!(
            parse(Verb::AddImage, "quay.io/a/b:1 beta"),
            Err("usage: add-image REF candidate|fast|stable".to_string())
        );
        assert_eq!(
            parse(Verb::Generate, "both"),
            Err("usage: generate major|minor on|off".to_string())
        );
        assert_eq!(
            parse(Verb::Substitute, "quay.io/a/b:1 b.v1").map(|e| e.describe()),
            Ok("substitute quay.io/a/b:1 for b.v1".to_string())
        );
        assert_eq!(
            parse(Verb::Unsubstitute, "a b"),
            Err("usage: unsubstitute BASE".to_string())
        );
        assert_eq!(
            parse(Verb::RemoveImage, ""),
            Err("usage: remove-image REF".to_string())
        );
        assert_eq!(
            parse(Verb::ChannelPreference, "sideways"),
            Err("usage: channel-preference major|minor|none".to_string())
        );
    }
}
