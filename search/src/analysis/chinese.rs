//! Chinese text (LANGUAGE chinese), as RediSearch's friso tokenizer treats it: runs of CJK
//! characters are cut into dictionary words, traditional characters are read as their
//! simplified forms (`那時` is indexed and searched as `那时`), and the rest of the text
//! (Latin words, numbers, escapes) is tokenized as in every other language.
//!
//! The words come from jieba-rs (its dictionary, no HMM guessing of unknown words), the
//! traditional-to-simplified mapping from fast2s; friso's own dictionary is not used, so a
//! sentence may be cut differently from RediSearch where the two dictionaries disagree.
//! The dictionary is loaded on first use (about 0.1 s and 33 MB, once per process).

use std::sync::OnceLock;

use jieba_rs::Jieba;

use super::tokenizer::{Token, Tokens};

fn jieba() -> &'static Jieba {
    static JIEBA: OnceLock<Jieba> = OnceLock::new();
    JIEBA.get_or_init(Jieba::new)
}

/// Characters cut by the dictionary: CJK ideographs, kana, hangul, and the CJK and
/// full-width punctuation between them (which then takes no token).
fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x2E80..=0x2FDF      // radicals
        | 0x3000..=0x303F    // CJK symbols and punctuation
        | 0x3040..=0x31FF    // kana, bopomofo, hangul compatibility jamo
        | 0x3400..=0x4DBF    // extension A
        | 0x4E00..=0x9FFF    // unified ideographs
        | 0xAC00..=0xD7AF    // hangul syllables
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0xFE30..=0xFE4F    // compatibility forms
        | 0xFF00..=0xFFEF    // full-width and half-width forms
        | 0x20000..=0x3134F) // extensions B to G
}

/// A full-width ASCII character as its ASCII form (friso reads `８` as `8`), else itself.
fn half_width(c: char) -> char {
    match u32::from(c) {
        0xFF01..=0xFF5E => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
        0x3000 => ' ',
        _ => c,
    }
}

/// The tokens of `text` read as Chinese, with byte offsets into `text`.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut run_start = 0;
    let mut in_cjk = false;
    for (i, c) in text.char_indices() {
        let cjk = is_cjk(c);
        if cjk != in_cjk && i > run_start {
            push_run(text, run_start, i, in_cjk, &mut out);
            run_start = i;
        }
        in_cjk = cjk;
    }
    push_run(text, run_start, text.len(), in_cjk, &mut out);
    out
}

/// Tokenizes `text[start..end]`, one run of CJK characters or of other text.
fn push_run(text: &str, start: usize, end: usize, cjk: bool, out: &mut Vec<Token>) {
    let Some(run) = text.get(start..end).filter(|r| !r.is_empty()) else { return };
    if !cjk {
        let mut toks = Tokens::new(run);
        while let Some((t, a, b)) = toks.next_token() {
            out.push(Token { text: t.to_string(), start: start + a, end: start + b });
        }
        return;
    }
    // fast2s rewrites each 3-byte character in place with another 3-byte one, so the
    // converted run's byte offsets are the source's.
    let simplified = fast2s::convert(run);
    if simplified.len() != run.len() {
        return cut(run, start, out);
    }
    cut(&simplified, start, out);
}

fn cut(run: &str, start: usize, out: &mut Vec<Token>) {
    for w in jieba().cut(run, false) {
        // Punctuation and spaces (friso's punctuation types) take no token.
        if !w.word.chars().any(char::is_alphanumeric) {
            continue;
        }
        let text: String = w.word.chars().map(half_width).flat_map(char::to_lowercase).collect();
        out.push(Token { text, start: start + w.byte_start, end: start + w.byte_end });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        tokenize(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn cuts_words_and_simplifies_traditional_characters() {
        assert_eq!(
            words("太初，上帝创造了天地。 那时，大地"),
            ["太初", "上帝", "创造", "了", "天地", "那时", "大地"]
        );
        // Traditional characters: the simplified word, offsets on the source's characters.
        let src = "那時，大地空虛混沌";
        let t = tokenize(src);
        assert_eq!(t[0].text, "那时");
        assert_eq!(&src[t[0].start..t[0].end], "那時");
        assert_eq!(t.iter().map(|t| t.text.as_str()).collect::<Vec<_>>(), ["那时", "大地", "空虚", "混沌"]);
    }

    #[test]
    fn latin_text_and_escapes_as_in_other_languages() {
        assert_eq!(words("Redis支持主从同步"), ["redis", "支持", "主从", "同步"]);
        assert_eq!(
            words(r"one \:\:hello two 器上同步 \-hello world\- two"),
            ["one", "::hello", "two", "器", "上", "同步", "-hello", "world-", "two"]
        );
        assert_eq!(words("hello\\-world 那时"), ["hello-world", "那时"]);
        // Full-width digits read as ASCII ones.
        assert_eq!(words("８月"), ["8", "月"]);
        assert!(words("，。！  ").is_empty());
    }

    #[test]
    fn offsets_point_into_the_source() {
        let src = "简介Redisson 是一个高级的分布式协调Redis客户端";
        for t in tokenize(src) {
            let s = &src[t.start..t.end];
            assert_eq!(s.to_lowercase(), t.text, "{t:?}");
        }
    }
}
