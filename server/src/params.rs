//! Reading requests: JSON bodies and query strings, with errors that name the field.

use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use serde::de::DeserializeOwned;
use tabula_api::Error;

/// The longest piece of client text quoted back in an error message.
const QUOTE: usize = 40;

/// `text` cut for an error message.
pub(crate) fn shorten(text: &str) -> String {
    match text.char_indices().nth(QUOTE) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// A JSON body as `T` (an empty body is `{}`). Too large: 413; not JSON or a wrong field: 400
/// naming the field (`budget.time_ms: invalid type …`).
pub(crate) fn json_body<T: DeserializeOwned>(
    body: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let bytes = body.map_err(|e| ApiError::new(e.status(), Error::bad_input(e.body_text())))?;
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        &bytes
    };
    // serde would also read a struct from an array: only an object is a request.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(ApiError::bad("body: a JSON object expected"));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." || path == "?" {
            "body".to_string()
        } else {
            path
        };
        ApiError::bad(format!("{field}: {}", e.inner()))
    })?;
    de.end()
        .map_err(|e| ApiError::bad(format!("body: {e} (one JSON object expected)")))?;
    Ok(value)
}

/// The parameters of a query string, each given at most once.
#[derive(Debug, Default)]
pub(crate) struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// Parses `query`; `known` (when given) lists the parameters allowed.
    pub(crate) fn parse(query: Option<&str>, known: Option<&[&str]>) -> Result<Query, ApiError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (k, v) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            if pairs.iter().any(|(seen, _)| *seen == k) {
                return Err(ApiError::bad(format!("{}: given twice", shorten(&k))));
            }
            if let Some(known) = known {
                if !known.contains(&k.as_ref()) {
                    return Err(ApiError::bad(format!(
                        "{}: unknown query parameter (expected {})",
                        shorten(&k),
                        known.join(", ")
                    )));
                }
            }
            pairs.push((k.into_owned(), v.into_owned()));
        }
        Ok(Query { pairs })
    }

    /// The value of `name`, if given.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The number `name`, if given, within `range`.
    pub(crate) fn number<T>(
        &self,
        name: &str,
        range: std::ops::RangeInclusive<T>,
    ) -> Result<Option<T>, ApiError>
    where
        T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
    {
        let Some(text) = self.get(name) else {
            return Ok(None);
        };
        let bad = || {
            ApiError::bad(format!(
                "{name}: {:?} is not a number from {} to {}",
                shorten(text),
                range.start(),
                range.end()
            ))
        };
        let n: T = text.trim().parse().map_err(|_| bad())?;
        if !range.contains(&n) {
            return Err(bad());
        }
        Ok(Some(n))
    }
}
