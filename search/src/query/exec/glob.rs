//! Wildcard patterns (`w'…'`): RediSearch's glob, `*` any run of characters, `?` one.

/// Whether `text` matches the glob `p`: `*` any run of characters, `?` one character.
pub(crate) fn matches(p: &[char], text: &str) -> bool {
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == '?' || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod glob_tests {
    use super::matches as glob_match;

    #[test]
    fn globs() {
        let m = |p: &str, t: &str| glob_match(&p.chars().collect::<Vec<_>>(), t);
        assert!(m("*el*", "hello") && m("*el*", "helen") && !m("*el*", "hall"));
        assert!(m("*llo", "hallo") && !m("*llo", "hall"));
        assert!(m("he*", "heal") && m("h?ll", "hell") && !m("h?ll", "hll"));
        assert!(m("*", "") && m("*", "x") && !m("", "x") && m("a*b*c", "aXbYc"));
    }
}
