//! Escaping for HTML text, attributes and SVG: every string a user or a
//! program could have chosen (names, commands, metric names, span names,
//! warnings) goes through [`esc`] before it reaches the page.

/// Escapes `&`, `<`, `>`, `"` and `'`, which is enough for text content and
/// for double- or single-quoted attribute values in HTML and SVG.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab and newline are not allowed in XML (SVG).
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_quotes_and_control_characters_are_neutralised() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\"\u{1}"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;\u{FFFD}"
        );
    }
}
