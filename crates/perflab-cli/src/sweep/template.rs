//! Command templates: `./bench {n} --threads {threads}`.
//!
//! A placeholder is `{NAME}` with NAME a parameter name (letters, digits,
//! `_`). Everything else is left as written, so that shell syntax survives:
//! `${HOME}` (a `{` right after `$`), `{ a; b; }` and `{a,b}` are not
//! placeholders. `{{` and `}}` stand for literal braces.

use super::params::{Point, is_identifier};
use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Param(String),
}

/// A parsed command template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    source: String,
    pieces: Vec<Piece>,
}

impl Template {
    /// Parses `text`; placeholders are checked against parameters later
    /// ([`Template::check`]).
    pub fn parse(text: &str) -> Self {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        let mut previous = None;
        while let Some(c) = rest.chars().next() {
            if rest.starts_with("{{") || rest.starts_with("}}") {
                literal.push(c);
                rest = &rest[2..];
                previous = Some(c);
                continue;
            }
            if c == '{' && previous != Some('$') {
                if let Some(end) = rest.find('}') {
                    let name = &rest[1..end];
                    if is_identifier(name) {
                        if !literal.is_empty() {
                            pieces.push(Piece::Text(std::mem::take(&mut literal)));
                        }
                        pieces.push(Piece::Param(name.to_string()));
                        rest = &rest[end + 1..];
                        previous = Some('}');
                        continue;
                    }
                }
            }
            literal.push(c);
            rest = &rest[c.len_utf8()..];
            previous = Some(c);
        }
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal));
        }
        Self {
            source: text.to_string(),
            pieces,
        }
    }

    /// The template as the user wrote it.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The parameter names it uses, in order of first use.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for piece in &self.pieces {
            if let Piece::Param(name) = piece {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Fails when the template names a parameter that `-p` does not give;
    /// `what` says where the template came from (e.g. `CMD` or `--env`).
    pub fn check(&self, what: &str, known: &[&str]) -> Result<()> {
        for name in self.names() {
            if !known.contains(&name) {
                let listing = if known.is_empty() {
                    "no parameters are given".to_string()
                } else {
                    format!("the parameters are {}", known.join(", "))
                };
                return Err(Error::usage(
                    what,
                    format!(
                        "'{}' names the parameter '{name}', which no -p gives ({listing}); add -p {name}=VALUES or fix the name",
                        self.source
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The text with every placeholder replaced by the point's value.
    pub fn expand(&self, point: &Point) -> String {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(t) => t.as_str(),
                Piece::Param(name) => point.get(name).map_or("", |v| v.text.as_str()),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::params::{cross_product, parse_parameter};

    fn point() -> Point {
        let params = [
            parse_parameter("n=1000").unwrap(),
            parse_parameter("mode=fast").unwrap(),
        ];
        cross_product(&params).unwrap().remove(0)
    }

    #[test]
    fn placeholders_are_replaced_and_shell_syntax_survives() {
        let t = Template::parse("./bench {n} --{mode} ${HOME} {a,b} { true; } {{n}}");
        assert_eq!(t.names(), ["n", "mode"]);
        assert_eq!(
            t.expand(&point()),
            "./bench 1000 --fast ${HOME} {a,b} { true; } {n}"
        );
    }

    #[test]
    fn a_parameter_that_was_not_given_is_named_in_the_error() {
        let err = Template::parse("./bench {m}")
            .check("CMD", &["n"])
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("CMD: './bench {m}' names the parameter 'm'"),
            "{err}"
        );
        assert!(err.contains("the parameters are n"), "{err}");
    }
}
