//! go-yaml v2's facts about scalars that opm's YAML output depends on, for [`super::goyaml`]: the
//! natural order it sorts mapping keys in, which strings it reads as timestamps (and so quotes), and
//! Go's `%g` formatting of the floats it writes.

/// go-yaml v2's order of string map keys: at the first differing character two letters compare by
/// code point, a letter sorts after a non-letter (before it when a digit precedes), and runs of
/// digits compare by value; a proper prefix sorts first.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if a == b {
        return Ordering::Equal;
    }
    if natural_less(a, b) {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

fn natural_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let mut digits = false;
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            digits = ar[i].is_ascii_digit();
            continue;
        }
        let (al, bl) = (ar[i].is_alphabetic(), br[i].is_alphabetic());
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return if digits { al } else { bl };
        }
        let (mut an, mut bn) = (0i64, 0i64);
        if ar[i] == '0' || br[i] == '0' {
            let nonzero_before = ar[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .any(|&c| c != '0');
            if nonzero_before {
                an = 1;
                bn = 1;
            }
        }
        let digit_run = |r: &[char], n: &mut i64| {
            let mut j = i;
            while j < r.len() && r[j].is_ascii_digit() {
                *n = n
                    .wrapping_mul(10)
                    .wrapping_add(i64::from(r[j] as u8 - b'0'));
                j += 1;
            }
            j
        };
        let ai = digit_run(&ar, &mut an);
        let bi = digit_run(&br, &mut bn);
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// A JSON number as go-yaml v2 writes what it decodes from it: integers in decimal, anything else
/// as a float through Go's `%g` (shortest digits; an exponent below 1e-4 and from 1e6 up).
pub fn go_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    go_float_g(n.as_f64().unwrap_or(0.0))
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` for a finite `f`.
pub fn go_float_g(f: f64) -> String {
    // Rust's `{:e}` gives the shortest digits that read back as `f`: `-1.2345e-7`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push_str(&format!(
            "e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        ));
    } else if exp < 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
        out.push_str(&digits);
    } else {
        let point = exp as usize + 1;
        if digits.len() <= point {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', point - digits.len()));
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
    out
}

/// go-yaml v2's timestamp test: `YYYY-M-D`, `YYYY-M-DTh:m:s[.frac](Z|±hh:mm)` (`T` or `t`), or
/// `YYYY-M-D h:m:s[.frac]`, with months, days, hours, minutes and seconds in range (the day for its
/// month). Such strings are written quoted.
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let mut p = Cursor { b, i: 5 };
    let year: u32 = s[..4].parse().unwrap_or(0);
    let Some(month) = p.num(1, 12) else {
        return false;
    };
    if !p.eat(b'-') {
        return false;
    }
    let Some(day) = p.num(1, 31) else {
        return false;
    };
    if day > days_in_month(year, month) {
        return false;
    }
    if p.done() {
        return true;
    }
    let zoned = match b[p.i] {
        b'T' | b't' => true,
        b' ' => false,
        _ => return false,
    };
    p.i += 1;
    let time_ok = p.num(0, 23).is_some()
        && p.eat(b':')
        && p.num(0, 59).is_some()
        && p.eat(b':')
        && p.num(0, 59).is_some();
    if !time_ok {
        return false;
    }
    if p.i + 1 < b.len() && matches!(b[p.i], b'.' | b',') && b[p.i + 1].is_ascii_digit() {
        p.i += 1;
        while p.i < b.len() && b[p.i].is_ascii_digit() {
            p.i += 1;
        }
    }
    if !zoned {
        return p.done();
    }
    let rest = &b[p.i..];
    match rest {
        [b'Z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit())
                && (h1 - b'0') * 10 + (h2 - b'0') <= 24
                && (m1 - b'0') * 10 + (m2 - b'0') <= 60
        }
        _ => false,
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    /// One or two digits in `min..=max`, as Go's layout elements `1`, `2`, `15`, `4` and `5` read.
    fn num(&mut self, min: u32, max: u32) -> Option<u32> {
        let start = self.i;
        while self.i < self.b.len() && self.i - start < 2 && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        let v: u32 = std::str::from_utf8(&self.b[start..self.i])
            .ok()?
            .parse()
            .ok()?;
        (min..=max).contains(&v).then_some(v)
    }

    fn eat(&mut self, c: u8) -> bool {
        let ok = self.b.get(self.i) == Some(&c);
        self.i += usize::from(ok);
        ok
    }

    fn done(&self) -> bool {
        self.i == self.b.len()
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_of_keys() {
        let mut keys = vec![
            "big", "b10", "b9", "B", "a", "a1", "a01", "_x", "x_", "x1y", "xy",
        ];
        keys.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            keys,
            [
                "_x", "B", "a", "a1", "a01", "b9", "b10", "big", "x_", "x1y", "xy"
            ]
        );
    }

    #[test]
    fn go_g_formatting() {
        for (f, s) in [
            (1.0, "1"),
            (0.5, "0.5"),
            (1e21, "1e+21"),
            (1e-7, "1e-07"),
            (0.0001, "0.0001"),
            (999999.0, "999999"),
            (1234567.0, "1.234567e+06"),
            (4.8, "4.8"),
        ] {
            assert_eq!(go_float_g(f), s, "{f}");
        }
    }

    #[test]
    fn timestamps_as_go_yaml_reads_them() {
        for (s, ts) in [
            ("2025-07-15", true),
            ("2025-7-5", true),
            ("2025-07-15T09:40:30Z", true),
            ("2025-07-15t09:40:30.123Z", true),
            ("2025-07-15T09:40:30+02:00", true),
            ("2025-07-15 09:40:30", true),
            ("2025-07-15 09:40:30.5", true),
            ("2024-02-29", true),
            ("2025-07-15T09:40:30", false),
            ("2025-07-15 09:40 UTC", false),
            ("2023-02-29", false),
            ("2025-13-01", false),
            ("2025-07-15T24:00:00Z", false),
            ("25-07-15", false),
            ("12/01/2024", false),
            ("2025-07-15x", false),
        ] {
            assert_eq!(is_timestamp(s), ts, "{s}");
        }
    }
}
