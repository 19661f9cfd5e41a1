//! [`LayoutError`], the one error of every layout's `encode` and `decode`; a leaf, so
//! that each version's file imports it from here rather than from `mod.rs`.

use core::fmt;

use crate::uuid::{Variant, Version};

/// A UUID that is not of the layout asked for, or a field value too wide for its field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The UUID's version or variant is not the one the layout defines.
    WrongVersion {
        /// The version the layout is for.
        expected: Version,
        /// The UUID's version nibble.
        found: Version,
        /// The UUID's variant.
        variant: Variant,
    },
    /// A field value does not fit its width.
    FieldTooWide {
        /// The field's name as RFC 9562 writes it.
        field: &'static str,
        /// The field's width in bits.
        bits: u32,
        /// The value given.
        value: u64,
    },
    /// A field value above the largest its field stands for.
    FieldTooLarge {
        /// The field's name.
        field: &'static str,
        /// The largest value allowed.
        max: u64,
        /// The value given.
        value: u64,
    },
    /// A field that must not be all zero bits is (the draft layouts' node and random bits).
    AllZero {
        /// The field's name.
        field: &'static str,
    },
    /// Bits the layout requires to be zero are not.
    NotZero {
        /// The field's name.
        field: &'static str,
        /// The bits found.
        value: u64,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::WrongVersion {
                expected,
                found,
                variant,
            } => write!(
                f,
                "expected an RFC 9562 version {} UUID, found version {} of the {} variant",
                expected.number(),
                found.number(),
                variant
            ),
            LayoutError::FieldTooWide { field, bits, value } => {
                write!(f, "{field} is {bits} bits wide; {value:#x} does not fit")
            }
            LayoutError::FieldTooLarge { field, max, value } => {
                write!(f, "{field} is at most {max}; {value} is too large")
            }
            LayoutError::AllZero { field } => {
                write!(f, "{field} must not be all zero bits")
            }
            LayoutError::NotZero { field, value } => write!(
                f,
                "{field} must be zero in this layout, found {value:#x}: not a UUID of this layout"
            ),
        }
    }
}

impl core::error::Error for LayoutError {}
