//! Unary minus binds more loosely than `^`, as in mathematics: `-w^2*x` is −(w²)·x.
//!
//! exmex applies a prefix operator to the operand right after it, before any binary operator, so it
//! reads `-w^2` as (−w)² = +w². Every expression (time functions and `[equations]`) goes through
//! [`bind_unary_minus`] before exmex parses it: a unary minus whose operand is raised to a power gets
//! parentheses around the whole power, `-w^2*x` → `-(w^2)*x`, `2^-x^2` → `2^-(x^2)`. Text without
//! such a minus comes back unchanged, so the parse (and every result) is the same as before.

use super::jet::number_len;

/// One lexical piece of an expression.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Token<'a> {
    /// A number, a name or any other character run that is one operand's start.
    Word(&'a str),
    /// One of `+ - * / ^ ,`.
    Op(char),
    Open,
    Close,
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        let len = if c.is_whitespace() {
            c.len_utf8()
        } else if number_len(rest) > 0 {
            let n = number_len(rest);
            out.push(Token::Word(&rest[..n]));
            n
        } else if c.is_alphanumeric() || c == '_' {
            let n = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            out.push(Token::Word(&rest[..n]));
            n
        } else {
            out.push(match c {
                '(' => Token::Open,
                ')' => Token::Close,
                '+' | '-' | '*' | '/' | '^' | ',' => Token::Op(c),
                _ => Token::Word(&rest[..c.len_utf8()]),
            });
            c.len_utf8()
        };
        i += len;
    }
    out
}

/// The index after the parenthesis that closes the one at `open` (the end when unbalanced).
fn after_close(t: &[Token<'_>], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, tok) in t.iter().enumerate().skip(open) {
        match tok {
            Token::Open => depth += 1,
            Token::Close => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    t.len()
}

/// The index after the operand that starts at `i`: a word (a call with its argument list when a
/// parenthesis follows) or a parenthesized group, with any prefix signs before it.
fn after_operand(t: &[Token<'_>], mut i: usize) -> usize {
    while matches!(t.get(i), Some(Token::Op('-' | '+'))) {
        i += 1;
    }
    match t.get(i) {
        Some(Token::Word(_)) if t.get(i + 1) == Some(&Token::Open) => after_close(t, i + 1),
        Some(Token::Open) => after_close(t, i),
        Some(_) => i + 1,
        None => i,
    }
}

/// The index after the power chain `operand (^ operand)*` that starts at `i`.
fn after_power(t: &[Token<'_>], i: usize) -> usize {
    let mut end = after_operand(t, i);
    while t.get(end) == Some(&Token::Op('^')) {
        end = after_operand(t, end + 1);
    }
    end
}

fn write(t: &[Token<'_>], out: &mut String) {
    let mut i = 0;
    while i < t.len() {
        let prefix = i == 0 || matches!(t[i - 1], Token::Op(_) | Token::Open);
        if prefix && t[i] == Token::Op('-') {
            let end = after_power(t, i + 1);
            let operand_end = after_operand(t, i + 1);
            if end > operand_end {
                out.push_str("-(");
                write(&t[i + 1..end], out);
                out.push(')');
                i = end;
                continue;
            }
        }
        match t[i] {
            Token::Word(w) => {
                // Two words in a row (`2 pi`) stay apart, as exmex saw them.
                if matches!(t.get(i.wrapping_sub(1)), Some(Token::Word(_))) {
                    out.push(' ');
                }
                out.push_str(w);
            }
            Token::Op(c) => out.push(c),
            Token::Open => out.push('('),
            Token::Close => out.push(')'),
        }
        i += 1;
    }
}

/// `text` with parentheses that make every unary minus apply to the whole power after it. Returns
/// `text` itself when it has no unary minus before a `^`.
pub fn bind_unary_minus(text: &str) -> std::borrow::Cow<'_, str> {
    let t = tokens(text);
    let needed = (0..t.len()).any(|i| {
        let prefix = i == 0 || matches!(t[i - 1], Token::Op(_) | Token::Open);
        prefix && t[i] == Token::Op('-') && after_power(&t, i + 1) > after_operand(&t, i + 1)
    });
    if !needed {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    write(&t, &mut out);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::bind_unary_minus;

    #[test]
    fn a_minus_before_a_power_covers_the_power() {
        for (text, want) in [
            ("-w^2*x", "-(w^2)*x"),
            ("-x^2", "-(x^2)"),
            ("2^-x^2", "2^-(x^2)"),
            ("a*-b^c^d", "a*-(b^c^d)"),
            ("exp(-t^2/2)", "exp(-(t^2)/2)"),
            ("-sin(t)^2", "-(sin(t)^2)"),
            ("-(a+b)^2", "-((a+b)^2)"),
            ("-2^-x^2", "-(2^-(x^2))"),
            ("-1e-3^2", "-(1e-3^2)"),
        ] {
            assert_eq!(bind_unary_minus(text), want, "{text}");
        }
    }

    #[test]
    fn other_text_is_left_alone() {
        for text in [
            "a - b^2", "-x", "x^-2", "-x*y", "(a)-b^2", "sin(-t)", "1e-3*t", "-PI",
        ] {
            assert!(
                matches!(bind_unary_minus(text), std::borrow::Cow::Borrowed(_)),
                "{text}"
            );
        }
    }
}
