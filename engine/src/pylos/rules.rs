//! Rule options: which patterns allow a take-back, and whether taking back is optional.

use std::fmt;
use std::str::FromStr;

/// Which completed patterns allow a take-back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Variant {
    /// No take-backs at all.
    Children,
    /// Own-colour 2×2 squares on levels 0–2.
    #[default]
    Standard,
    /// Squares, and own-colour rows or columns: 4 on level 0, 3 on level 1.
    Mature,
}

/// How many balls the mover takes back after completing a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Takeback {
    /// 0, 1 or 2.
    #[default]
    Optional,
    /// 1 or 2. The ball just moved is always free afterwards, so there is always one to take.
    Compulsory,
}

/// The rule options that apply to a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Rules {
    /// Which patterns allow a take-back.
    pub variant: Variant,
    /// Whether taking back is optional.
    pub takeback: Takeback,
}

impl Rules {
    /// Every combination of options, `children` first.
    pub const ALL: [Rules; 6] = [
        Rules::new(Variant::Children, Takeback::Optional),
        Rules::new(Variant::Children, Takeback::Compulsory),
        Rules::new(Variant::Standard, Takeback::Optional),
        Rules::new(Variant::Standard, Takeback::Compulsory),
        Rules::new(Variant::Mature, Takeback::Optional),
        Rules::new(Variant::Mature, Takeback::Compulsory),
    ];

    /// Rules from their two options.
    pub const fn new(variant: Variant, takeback: Takeback) -> Rules {
        Rules { variant, takeback }
    }

    /// A number in 0..6, distinct for each combination.
    pub const fn code(self) -> u8 {
        (self.variant as u8) * 2 + self.takeback as u8
    }

    /// The patterns whose completion allows a take-back.
    pub fn patterns(self) -> &'static [u32] {
        match self.variant {
            Variant::Children => &[],
            Variant::Standard => &super::cell::SQUARES,
            Variant::Mature => &super::cell::SQUARES_AND_LINES,
        }
    }
}

/// An option value that is not one of the names.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseRulesError {
    /// Not `children`, `standard` or `mature`.
    UnknownVariant { text: String },
    /// Not `optional` or `compulsory`.
    UnknownTakeback { text: String },
}

impl fmt::Display for ParseRulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseRulesError::UnknownVariant { text } => write!(
                f,
                "unknown rules '{text}' (expected children, standard or mature)"
            ),
            ParseRulesError::UnknownTakeback { text } => write!(
                f,
                "unknown take-back option '{text}' (expected optional or compulsory)"
            ),
        }
    }
}

impl std::error::Error for ParseRulesError {}

impl FromStr for Variant {
    type Err = ParseRulesError;

    fn from_str(s: &str) -> Result<Variant, ParseRulesError> {
        match s {
            "children" => Ok(Variant::Children),
            "standard" => Ok(Variant::Standard),
            "mature" => Ok(Variant::Mature),
            _ => Err(ParseRulesError::UnknownVariant {
                text: s.to_string(),
            }),
        }
    }
}

impl FromStr for Takeback {
    type Err = ParseRulesError;

    fn from_str(s: &str) -> Result<Takeback, ParseRulesError> {
        match s {
            "optional" => Ok(Takeback::Optional),
            "compulsory" => Ok(Takeback::Compulsory),
            _ => Err(ParseRulesError::UnknownTakeback {
                text: s.to_string(),
            }),
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Children => "children",
            Variant::Standard => "standard",
            Variant::Mature => "mature",
        })
    }
}

impl fmt::Display for Takeback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Takeback::Optional => "optional",
            Takeback::Compulsory => "compulsory",
        })
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.variant, self.takeback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_say_which_option_and_keep_the_message() {
        assert_eq!("mature".parse::<Variant>(), Ok(Variant::Mature));
        let e = "adult".parse::<Variant>().unwrap_err();
        assert_eq!(
            e,
            ParseRulesError::UnknownVariant {
                text: "adult".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "unknown rules 'adult' (expected children, standard or mature)"
        );
        let e = "never".parse::<Takeback>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown take-back option 'never' (expected optional or compulsory)"
        );
        assert!(matches!(e, ParseRulesError::UnknownTakeback { .. }));
    }
}
