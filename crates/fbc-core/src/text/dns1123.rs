//! Kubernetes' DNS-1123 label rule (apimachinery's `IsDNS1123Label`), which package names follow.

/// What is wrong with `name` as a DNS-1123 label, in apimachinery's words (empty when nothing is).
pub fn label_problems(name: &str) -> Vec<&'static str> {
    let mut errs = Vec::new();
    if name.len() > 63 {
        errs.push("must be no more than 63 characters");
    }
    let b = name.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let ok = !b.is_empty()
        && alnum(&b[0])
        && alnum(&b[b.len() - 1])
        && b.iter().all(|c| alnum(c) || *c == b'-');
    if !ok {
        // A valid DNS-1123 subdomain (labels joined by dots) gets the shorter message.
        let subdomain = name.len() <= 253
            && name.split('.').all(|l| {
                let l = l.as_bytes();
                !l.is_empty()
                    && alnum(&l[0])
                    && alnum(&l[l.len() - 1])
                    && l.iter().all(|c| alnum(c) || *c == b'-')
            });
        if subdomain {
            errs.push("must not contain dots");
        } else {
            errs.push(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            );
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_subdomains() {
        assert!(label_problems("my-operator").is_empty());
        assert_eq!(label_problems("a.b"), ["must not contain dots"]);
        assert_eq!(
            label_problems(&"a".repeat(64)),
            ["must be no more than 63 characters"]
        );
        assert_eq!(label_problems("My_Op").len(), 1);
    }
}
