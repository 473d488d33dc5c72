//! UTC calendar arithmetic, `strftime` and `strptime` for the date functions.
//!
//! Written here (no chrono/time crate) because only a small, fixed subset of
//! glibc's behaviour is needed and it must match C exactly: civil-date
//! conversion is Howard Hinnant's `days_from_civil` / `civil_from_days`.
//!
//! Contract: [`gmtime`] is exact for every year that fits an `i32`;
//! [`strftime`] supports `%a %A %b %B %h %c %C %d %D %e %F %H %I %j %m %M %n
//! %p %R %s %S %t %T %u %U %w %W %x %X %y %Y %z %Z %%` (others are copied);
//! [`strptime`] supports `%Y %m %d %e %H %M %S %j %b %B %h %a %A %y %p %I %T
//! %F %D %R %z %Z %s %n %t %%`, whitespace matching any run of whitespace.

/// Broken-down UTC time (`struct tm` without the `tm_` prefixes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tm {
    /// Full year (not minus 1900).
    pub year: i64,
    /// Month 0–11.
    pub mon: i64,
    /// Day of month 1–31 (0 before normalization means "day before the 1st").
    pub mday: i64,
    /// Hour 0–23.
    pub hour: i64,
    /// Minute 0–59.
    pub min: i64,
    /// Second 0–60.
    pub sec: i64,
    /// Day of week, Sunday = 0.
    pub wday: i64,
    /// Day of year, 0-based.
    pub yday: i64,
}

const SECS_PER_DAY: i64 = 86_400;
const DAY_NAMES: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTH_NAMES: [&str; 12] = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
];

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1–12).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month 1–12, day) of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// `gmtime_r`; `None` when the year does not fit a C `int`.
pub fn gmtime(t: i64) -> Option<Tm> {
    let days = t.div_euclid(SECS_PER_DAY);
    let secs = t.rem_euclid(SECS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    if y - 1900 > i32::MAX as i64 || y - 1900 < i32::MIN as i64 {
        return None;
    }
    Some(Tm {
        year: y,
        mon: m - 1,
        mday: d,
        hour: secs / 3600,
        min: secs % 3600 / 60,
        sec: secs % 60,
        wday: (days + 4).rem_euclid(7),
        yday: days - days_from_civil(y, 1, 1),
    })
}

/// `timegm`: seconds since the epoch, normalizing out-of-range fields.
pub fn timegm(tm: &Tm) -> i64 {
    let y = tm.year + tm.mon.div_euclid(12);
    let m = tm.mon.rem_euclid(12);
    let days = days_from_civil(y, m + 1, 1) + tm.mday - 1;
    days * SECS_PER_DAY + tm.hour * 3600 + tm.min * 60 + tm.sec
}

/// `strftime` in UTC; `None` when the output would be empty or too long
/// (C's `strftime` returning 0).
pub fn strftime(fmt: &[u8], tm: &Tm, max: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(32);
    format_into(&mut out, fmt, tm);
    if out.is_empty() || out.len() >= max {
        None
    } else {
        Some(out)
    }
}

fn format_into(out: &mut Vec<u8>, fmt: &[u8], tm: &Tm) {
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' || i + 1 >= fmt.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let spec = fmt[i + 1];
        i += 2;
        let hour12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
        let mut put = |s: String| out.extend_from_slice(s.as_bytes());
        match spec {
            b'a' => put(abbrev(&DAY_NAMES, tm.wday)),
            b'A' => put(full(&DAY_NAMES, tm.wday)),
            b'b' | b'h' => put(abbrev(&MONTH_NAMES, tm.mon)),
            b'B' => put(full(&MONTH_NAMES, tm.mon)),
            b'C' => put(format!("{:02}", tm.year.div_euclid(100))),
            b'd' => put(format!("{:02}", tm.mday)),
            b'e' => put(format!("{:2}", tm.mday)),
            b'H' => put(format!("{:02}", tm.hour)),
            b'I' => put(format!("{:02}", hour12)),
            b'j' => put(format!("{:03}", tm.yday + 1)),
            b'm' => put(format!("{:02}", tm.mon + 1)),
            b'M' => put(format!("{:02}", tm.min)),
            b'n' => put("\n".into()),
            b't' => put("\t".into()),
            b'p' => put(if tm.hour < 12 { "AM".into() } else { "PM".into() }),
            b'S' => put(format!("{:02}", tm.sec)),
            b's' => put(timegm(tm).to_string()),
            b'u' => put(format!("{}", if tm.wday == 0 { 7 } else { tm.wday })),
            b'w' => put(format!("{}", tm.wday)),
            b'U' => put(format!("{:02}", (tm.yday + 7 - tm.wday) / 7)),
            b'W' => put(format!("{:02}", (tm.yday + 7 - (tm.wday + 6) % 7) / 7)),
            b'y' => put(format!("{:02}", tm.year.rem_euclid(100))),
            b'Y' => put(format!("{}", tm.year)),
            b'z' => put("+0000".into()),
            b'Z' => put("GMT".into()),
            b'%' => put("%".into()),
            b'D' | b'x' => format_into(out, b"%m/%d/%y", tm),
            b'F' => format_into(out, b"%Y-%m-%d", tm),
            b'T' | b'X' => format_into(out, b"%H:%M:%S", tm),
            b'R' => format_into(out, b"%H:%M", tm),
            b'r' => format_into(out, b"%I:%M:%S %p", tm),
            b'c' => format_into(out, b"%a %b %e %H:%M:%S %Y", tm),
            other => {
                out.push(b'%');
                out.push(other);
            }
        }
    }
}

fn full(names: &[&str], idx: i64) -> String {
    usize::try_from(idx).ok().and_then(|i| names.get(i)).copied().unwrap_or("?").to_string()
}

fn abbrev(names: &[&str], idx: i64) -> String {
    full(names, idx).chars().take(3).collect()
}

/// Parsing state of [`strptime`].
#[derive(Default)]
struct Parsed {
    tm: Tm,
    have_mon: bool,
    have_mday: bool,
    yday: Option<i64>,
    pm: Option<bool>,
    hour12: bool,
    epoch: Option<i64>,
}

/// `strptime` followed by the fields `timegm` reads. Trailing input is
/// allowed (as in C); unparsed fields stay 0, so a missing day of month
/// means "the day before the 1st", exactly as `timegm` normalizes it.
pub fn strptime(input: &[u8], fmt: &[u8]) -> Option<Tm> {
    let mut st = Parsed::default();
    st.tm.year = 1900;
    let mut pos = 0;
    parse_into(&mut st, input, &mut pos, fmt, 0)?;
    if let Some(t) = st.epoch {
        return gmtime(t);
    }
    if st.hour12 {
        st.tm.hour %= 12;
        if st.pm == Some(true) {
            st.tm.hour += 12;
        }
    } else if st.pm == Some(true) && st.tm.hour < 12 {
        st.tm.hour += 12;
    }
    if let Some(yd) = st.yday {
        if !st.have_mon && !st.have_mday {
            let days = days_from_civil(st.tm.year, 1, 1) + yd;
            let (_, m, d) = civil_from_days(days);
            st.tm.mon = m - 1;
            st.tm.mday = d;
        }
    }
    Some(st.tm)
}

fn skip_space(input: &[u8], pos: &mut usize) {
    while input.get(*pos).is_some_and(u8::is_ascii_whitespace) {
        *pos += 1;
    }
}

fn number(input: &[u8], pos: &mut usize, max_digits: usize, lo: i64, hi: i64) -> Option<i64> {
    skip_space(input, pos);
    let mut neg = false;
    if input.get(*pos) == Some(&b'-') && lo < 0 {
        neg = true;
        *pos += 1;
    } else if input.get(*pos) == Some(&b'+') && lo < 0 {
        *pos += 1;
    }
    let start = *pos;
    let mut v: i64 = 0;
    while *pos < input.len() && *pos - start < max_digits && input[*pos].is_ascii_digit() {
        v = v.checked_mul(10)?.checked_add(i64::from(input[*pos] - b'0'))?;
        *pos += 1;
    }
    if *pos == start {
        return None;
    }
    let v = if neg { -v } else { v };
    (lo..=hi).contains(&v).then_some(v)
}

fn name(input: &[u8], pos: &mut usize, names: &[&str]) -> Option<i64> {
    let rest = &input[(*pos).min(input.len())..];
    for (i, n) in names.iter().enumerate() {
        for cand in [n.as_bytes(), &n.as_bytes()[..3]] {
            if rest.len() >= cand.len() && rest[..cand.len()].eq_ignore_ascii_case(cand) {
                *pos += cand.len();
                return Some(i as i64);
            }
        }
    }
    None
}

fn parse_into(st: &mut Parsed, input: &[u8], pos: &mut usize, fmt: &[u8], depth: u8) -> Option<()> {
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c.is_ascii_whitespace() {
            skip_space(input, pos);
            i += 1;
            continue;
        }
        if c != b'%' || i + 1 >= fmt.len() {
            if input.get(*pos) != Some(&c) {
                return None;
            }
            *pos += 1;
            i += 1;
            continue;
        }
        let spec = fmt[i + 1];
        i += 2;
        let sub = |st: &mut Parsed, pos: &mut usize, f: &[u8]| {
            if depth > 2 {
                None
            } else {
                parse_into(st, input, pos, f, depth + 1)
            }
        };
        match spec {
            b'Y' => st.tm.year = number(input, pos, 4, 0, 9999)?,
            b'y' => {
                let y = number(input, pos, 2, 0, 99)?;
                st.tm.year = if y < 69 { 2000 + y } else { 1900 + y };
            }
            b'C' => {
                let c = number(input, pos, 2, 0, 99)?;
                st.tm.year = c * 100 + st.tm.year.rem_euclid(100);
            }
            b'm' => {
                st.tm.mon = number(input, pos, 2, 1, 12)? - 1;
                st.have_mon = true;
            }
            b'd' | b'e' => {
                st.tm.mday = number(input, pos, 2, 1, 31)?;
                st.have_mday = true;
            }
            b'H' => {
                st.tm.hour = number(input, pos, 2, 0, 23)?;
                st.hour12 = false;
            }
            b'I' => {
                st.tm.hour = number(input, pos, 2, 1, 12)?;
                st.hour12 = true;
            }
            b'M' => st.tm.min = number(input, pos, 2, 0, 59)?,
            b'S' => st.tm.sec = number(input, pos, 2, 0, 61)?,
            b'j' => st.yday = Some(number(input, pos, 3, 1, 366)? - 1),
            b'b' | b'B' | b'h' => {
                skip_space(input, pos);
                st.tm.mon = name(input, pos, &MONTH_NAMES)?;
                st.have_mon = true;
            }
            b'a' | b'A' => {
                skip_space(input, pos);
                st.tm.wday = name(input, pos, &DAY_NAMES)?;
            }
            b'p' => {
                skip_space(input, pos);
                let rest = input.get(*pos..).unwrap_or_default();
                if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"AM") {
                    st.pm = Some(false);
                } else if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"PM") {
                    st.pm = Some(true);
                } else {
                    return None;
                }
                *pos += 2;
            }
            b's' => st.epoch = Some(number(input, pos, 19, i64::MIN + 1, i64::MAX)?),
            b'z' => {
                skip_space(input, pos);
                if input.get(*pos) == Some(&b'Z') {
                    *pos += 1;
                } else {
                    match input.get(*pos) {
                        Some(b'+' | b'-') => *pos += 1,
                        _ => return None,
                    }
                    let start = *pos;
                    while *pos < input.len() && (input[*pos].is_ascii_digit() || input[*pos] == b':') {
                        *pos += 1;
                    }
                    if *pos == start {
                        return None;
                    }
                }
            }
            b'Z' => {
                while input.get(*pos).is_some_and(|b| !b.is_ascii_whitespace()) {
                    *pos += 1;
                }
            }
            b'n' | b't' => skip_space(input, pos),
            b'%' => {
                if input.get(*pos) != Some(&b'%') {
                    return None;
                }
                *pos += 1;
            }
            b'T' => sub(st, pos, b"%H:%M:%S")?,
            b'F' => sub(st, pos, b"%Y-%m-%d")?,
            b'D' => sub(st, pos, b"%m/%d/%y")?,
            b'R' => sub(st, pos, b"%H:%M")?,
            _ => return None,
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-800_000i64, -1, 0, 1, 59, 365, 11_016, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2024, 3, 1) - days_from_civil(2024, 2, 1), 29);
        assert_eq!(days_from_civil(1900, 3, 1) - days_from_civil(1900, 2, 1), 28);
    }

    #[test]
    fn gmtime_known_dates() {
        // 2021-03-14T15:09:26Z, a Sunday, day 73 of the year (0-based 72).
        let tm = gmtime(1_615_734_566).unwrap();
        assert_eq!((tm.year, tm.mon, tm.mday, tm.hour, tm.min, tm.sec), (2021, 2, 14, 15, 9, 26));
        assert_eq!((tm.wday, tm.yday), (0, 72));
        assert_eq!(timegm(&tm), 1_615_734_566);
    }

    #[test]
    fn strftime_subset() {
        let tm = gmtime(1_615_734_566).unwrap();
        let f = |s: &str| String::from_utf8(strftime(s.as_bytes(), &tm, 1024).unwrap()).unwrap();
        assert_eq!(f("%FT%TZ"), "2021-03-14T15:09:26Z");
        assert_eq!(f("%a %b %d %j %% %Z"), "Sun Mar 14 073 % GMT");
        assert_eq!(f("%A %B %e %I%p %y"), "Sunday March 14 03PM 21");
        assert!(strftime(b"", &tm, 1024).is_none());
    }

    #[test]
    fn strptime_subset() {
        let tm = strptime(b"2021-03-14T15:09:26Z", b"%Y-%m-%dT%H:%M:%SZ").unwrap();
        assert_eq!(timegm(&tm), 1_615_734_566);
        let tm = strptime(b"14 Mar 2021 03:09PM", b"%d %b %Y %I:%M%p").unwrap();
        assert_eq!(timegm(&tm), 1_615_734_540);
        assert!(strptime(b"2021-13-01", b"%Y-%m-%d").is_none());
        // Day of month missing: timegm normalizes day 0 to the previous day.
        let tm = strptime(b"2020", b"%Y").unwrap();
        assert_eq!(timegm(&tm), days_from_civil(2019, 12, 31) * 86_400);
    }
}
