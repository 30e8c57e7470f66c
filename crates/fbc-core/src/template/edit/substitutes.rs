//! Edits of a substitutes template's `substitutions`: adding one (`{name: <image>, base: <bundle>}`
//! at the end of the list, which is where opm applies it last) and removing the one of a base. The
//! rest of the file keeps every byte; what the change does to the rendering is seen by rendering
//! it again.

use crate::catalog::node::{Kind, Node};
use crate::template::substitutes::Substitutes;

use super::doc::key_as_written;
use super::{TemplateDoc, TemplateEditError};

/// An edit only a substitutes template has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubstitutesEdit {
    /// The bundle rendered from `image` takes the place of bundle `base`.
    Add { image: String, base: String },
    /// Drops the substitution whose base is `base`.
    Remove { base: String },
}

impl SubstitutesEdit {
    pub fn describe(&self) -> String {
        match self {
            SubstitutesEdit::Add { image, base } => format!("substitute {image} for {base}"),
            SubstitutesEdit::Remove { base } => format!("drop the substitution of {base}"),
        }
    }

    /// The part of a template the edit changes.
    pub fn field(&self) -> &'static str {
        "substitutions"
    }
}

pub(super) fn apply(
    doc: &TemplateDoc,
    s: &Substitutes,
    e: &SubstitutesEdit,
) -> Result<Node, TemplateEditError> {
    let refuse = |why: String| Err(TemplateEditError::CannotExpress(why));
    let mut node = doc.node().clone();
    let key = key_as_written(&node, "substitutions").map(str::to_string);
    match e {
        SubstitutesEdit::Add { image, base } => {
            if image.is_empty() || base.is_empty() {
                return refuse("a substitution needs an image and a base bundle".into());
            }
            if let Some(old) = s.substitutions.iter().find(|x| &x.base == base) {
                return refuse(format!(
                    "{}:{}: bundle {base} already has a substitute ({}); opm refuses a base used twice: drop that substitution first, or chain one onto its bundle",
                    doc.name(),
                    old.at.0,
                    old.name
                ));
            }
            if let Some(old) = s.substitutions.iter().find(|x| &x.name == image) {
                return refuse(format!(
                    "{}:{}: {image} already stands in for {}; opm refuses an image substituted for two bases",
                    doc.name(),
                    old.at.0,
                    old.base
                ));
            }
            let item = Node::map(vec![
                ("name", Node::string(image.as_str())),
                ("base", Node::string(base.as_str())),
            ]);
            match key.and_then(|k| node.get_field_mut(&k)) {
                Some(list) => match &mut list.kind {
                    Kind::Seq(items) => items.push(item),
                    _ => *list = Node::seq(vec![item]),
                },
                None => node.set_field("substitutions", Node::seq(vec![item])),
            }
        }
        SubstitutesEdit::Remove { base } => {
            let Some(i) = s.substitutions.iter().position(|x| &x.base == base) else {
                return refuse(format!("{}: no substitution has base {base}", doc.name()));
            };
            let Some(Kind::Seq(items)) = key
                .and_then(|k| node.get_field_mut(&k))
                .map(|n| &mut n.kind)
            else {
                return refuse(format!("{}: no substitutions list", doc.name()));
            };
            if i < items.len() {
                items.remove(i);
            }
        }
    }
    Ok(node)
}
