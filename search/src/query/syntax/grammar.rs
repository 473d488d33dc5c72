//! The tokens that can continue an expression, and each dialect's precedences over them
//! (RediSearch's `v1/parser.y` and `v2/parser.y` `%left` lists), which
//! [`super::parser`]'s precedence climbing reads.

use super::scanner::{is_special, Parser};

/// The tokens that can follow an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    Term,
    Number,
    Affix,
    Percent,
    Quote,
    Lp,
    Modifier,
    Minus,
    Tilde,
    Or,
    Arrow,
}

/// One dialect's precedences (positions in its parser.y `%left` list, lowest first): of the
/// rules, and of the tokens.
pub(super) struct Grammar {
    pub(super) or: u8,
    pub(super) and: u8,
    pub(super) minus: u8,
    pub(super) tilde: u8,
    /// `@field: expr` (dialect 1: MODIFIER; dialect 2: the rule's last token, COLON).
    pub(super) modifier: u8,
    pub(super) term: u8,
    pub(super) number: u8,
    pub(super) affix: u8,
    pub(super) percent: u8,
    pub(super) quote: u8,
    pub(super) lp: u8,
    pub(super) modifier_token: u8,
    pub(super) minus_token: u8,
    pub(super) tilde_token: u8,
    pub(super) arrow: u8,
}

impl Grammar {
    /// The precedence of token `t`.
    pub(super) fn token(&self, t: Token) -> u8 {
        match t {
            Token::Term => self.term,
            Token::Number => self.number,
            Token::Affix => self.affix,
            Token::Percent => self.percent,
            Token::Quote => self.quote,
            Token::Lp => self.lp,
            Token::Modifier => self.modifier_token,
            Token::Minus => self.minus_token,
            Token::Tilde => self.tilde_token,
            Token::Or => self.or,
            Token::Arrow => self.arrow,
        }
    }
}

/// v1: LOWEST TILDE TAGLIST QUOTE COLON MINUS NUMBER STOPWORD TERMLIST TERM PREFIX PERCENT
/// ATTRIBUTE LP RP MODIFIER AND OR ORX ARROW.
const V1: Grammar = Grammar {
    or: 17,
    and: 16,
    minus: 5,
    tilde: 1,
    modifier: 15,
    term: 9,
    number: 6,
    affix: 10,
    percent: 11,
    quote: 3,
    lp: 13,
    modifier_token: 15,
    minus_token: 5,
    tilde_token: 1,
    arrow: 19,
};

/// v2: LOWEST TEXTEXPR ORX OR ISMISSING MODIFIER RP EXACT TERM QUOTE LP TILDE/MINUS AND ARROW
/// COLON EQUALS GT NUMBER SIZE STAR TAGLIST TERMLIST PREFIX PERCENT ATTRIBUTE VERBATIM (a
/// quoted phrase is one EXACT token; `$param` an ATTRIBUTE).
const V2: Grammar = Grammar {
    or: 3,
    and: 12,
    minus: 11,
    tilde: 11,
    modifier: 14,
    term: 8,
    number: 17,
    affix: 22,
    percent: 23,
    quote: 7,
    lp: 10,
    modifier_token: 5,
    minus_token: 11,
    tilde_token: 11,
    arrow: 13,
};

impl Parser<'_> {
    /// The precedences of this parser's dialect.
    pub(super) fn grammar(&self) -> &'static Grammar {
        if self.dialect >= 2 {
            &V2
        } else {
            &V1
        }
    }

    /// The next token's kind, without consuming it (`None`: none that continues an
    /// expression).
    pub(super) fn token(&mut self) -> Option<Token> {
        self.skip_ws();
        self.skip_lone_equals();
        let c = self.peek()?;
        Some(match c {
            // A VERBATIM token: the atom reports its syntax error.
            '\'' if self.at_verbatim() => Token::Term,
            '|' => Token::Or,
            '=' if self.peek_at(1) == Some('>') => Token::Arrow,
            '-' => match self.minus_number() {
                Some(true) => Token::Affix,
                Some(false) => Token::Number,
                None => Token::Minus,
            },
            '~' => Token::Tilde,
            '"' => Token::Quote,
            '(' => Token::Lp,
            '@' => Token::Modifier,
            '%' => Token::Percent,
            '*' | '$' => Token::Affix,
            _ if is_special(c) => return None,
            _ => {
                // RediSearch's lexers skip punctuation between tokens; then a number (the
                // longest match) or a term, either followed by `*` a prefix token.
                let at = self.i;
                self.skip_word_punct();
                let tok = if self.peek() == Some('*') && self.i > at {
                    Token::Affix
                } else if self.peek().is_none_or(is_special) {
                    // Punctuation alone: the atom reads it as a word without terms.
                    Token::Term
                } else {
                    let n = self.number_token_len(0);
                    let len = if n > 0 { n } else { self.term_len(0) };
                    if self.peek_at(len) == Some('*') {
                        Token::Affix
                    } else if n > 0 {
                        Token::Number
                    } else {
                        Token::Term
                    }
                };
                self.i = at;
                tok
            }
        })
    }
}
